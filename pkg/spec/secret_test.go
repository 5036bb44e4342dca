package spec

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func fileTokenDoc(name, path string) string {
	return strings.Replace(discordDoc(name, ""), "{fromEnv: TEST_DISCORD_TOKEN}", "{fromFile: "+path+"}", 1)
}

func TestSecretFromEnv(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "d.yaml", discordDoc("a", ""))
	t.Setenv("TEST_DISCORD_TOKEN", "")
	if got := issueStrings(LoadOnce(p).Errors); !strings.Contains(got, `spec.discord.botToken.fromEnv: Invalid value: "TEST_DISCORD_TOKEN": environment variable is empty`) {
		t.Errorf("empty env: got %q", got)
	}
	os.Unsetenv("TEST_DISCORD_TOKEN")
	if got := issueStrings(LoadOnce(p).Errors); !strings.Contains(got, `environment variable is not set`) {
		t.Errorf("unset env: got %q", got)
	}
	t.Setenv("TEST_DISCORD_TOKEN", "tok")
	res := LoadOnce(p)
	if !res.Valid() || res.Daemons[0].Config.Discord.BotToken.Reveal() != "tok" {
		t.Fatalf("set env: %s", issueStrings(res.Errors))
	}
	if got := res.Daemons[0].EnvNames; len(got) != 1 || got[0] != "TEST_DISCORD_TOKEN" {
		t.Errorf("EnvNames = %v", got)
	}
}

func TestSecretFromFile(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "token", "file-token\n")
	loose := writeFile(t, dir, "loose", "file-token\n")
	if err := os.Chmod(loose, 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	empty := writeFile(t, dir, "empty", "\n")
	cases := []struct{ ref, want string }{
		{"token", ""}, // relative to the spec file's directory
		{good, ""},
		{loose, "mode 0640 lets group or others read it; chmod 600"},
		{link, "is a symlink"},
		{dir, "is not a regular file"},
		{filepath.Join(dir, "missing"), "file does not exist"},
		{empty, "file is empty"},
	}
	if os.Getuid() == 0 {
		foreign := writeFile(t, dir, "foreign", "file-token\n")
		if err := os.Chown(foreign, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct{ ref, want string }{foreign, "owned by uid 65534, not by uid 0"})
	}
	for _, tc := range cases {
		t.Run(filepath.Base(tc.ref), func(t *testing.T) {
			p := writeFile(t, dir, "d.yaml", fileTokenDoc("a", tc.ref))
			res := LoadOnce(p)
			got := issueStrings(res.Errors)
			if tc.want == "" {
				if !res.Valid() {
					t.Fatalf("want valid, got %s", got)
				}
				if tok := res.Daemons[0].Config.Discord.BotToken.Reveal(); tok != "file-token" {
					t.Errorf("token %q, want the file's content with its newline trimmed", tok)
				}
				return
			}
			if !strings.Contains(got, "spec.discord.botToken.fromFile: Invalid value: \""+tc.ref+"\": "+tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if strings.Contains(got, "file-token") {
				t.Errorf("error shows the token: %q", got)
			}
		})
	}
}

// Every output a spec can produce is searched for the secret.
func TestSecretsNeverPrinted(t *testing.T) {
	const secret = "SUPER-secret-tok-9f8e7d"
	dir := t.TempDir()
	t.Setenv("TEST_DISCORD_TOKEN", secret)
	writeFile(t, dir, "tokenfile", secret+"\n")
	loose := writeFile(t, dir, "loose", secret+"\n")
	if err := os.Chmod(loose, 0o644); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "good.yaml", strings.Join([]string{
		discordDoc("from-env", ""),
		fileTokenDoc("from-file", "tokenfile"),
		strings.Replace(discordDoc("inline", ""), "{fromEnv: TEST_DISCORD_TOKEN}", "{value: "+secret+"}", 1),
	}, "---\n"))
	docs := []string{
		fileTokenDoc("loose-file", "loose"),
		strings.Replace(discordDoc("inline-bad", ""), "{fromEnv: TEST_DISCORD_TOKEN}", "{value: "+secret+", fromEnv: X}", 1),
		strings.Replace(discordDoc("wrong-place", ""), "applicationId: app-1", "applicationId: {value: "+secret+"}", 1),
		strings.Replace(discordDoc("url", ""), "guildId: guild-2", "guildId: guild-2\n    apiURL: http://u:"+secret+"@127.0.0.1/", 1),
		strings.Replace(discordDoc("url2", ""), "guildId: guild-2", "guildId: guild-2\n    apiURL: \"http://u:"+secret+"@127.0.0.1:x/\"", 1),
		strings.Replace(slackDoc("slack-x"), "{fromEnv: TEST_SLACK_APP}", "{value: "+secret+"}", 1),
		// The token pasted where its variable's name goes.
		strings.Replace(discordDoc("pasted", ""), "{fromEnv: TEST_DISCORD_TOKEN}", "{fromEnv: "+secret+"}", 1),
	}
	writeFile(t, dir, "bad.yaml", strings.Join(docs, "---\n"))
	res := LoadOnce(dir)
	if len(res.Warnings) == 0 || len(res.Errors) == 0 {
		t.Fatalf("fixture should produce warnings and errors: %+v", res)
	}
	var out strings.Builder
	out.WriteString(issueStrings(res.Errors) + issueStrings(res.Warnings))
	for _, d := range res.Daemons {
		fmt.Fprintf(&out, "%v %+v %#v %s %q %x\n", d.Config, d.Config, d.Config, d.Config.Discord, d.Config.Discord, d.Config.Slack)
		js, err := json.Marshal(d.Config)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(js)
	}
	if strings.Contains(out.String(), secret) {
		t.Fatalf("secret found in output:\n%s", out.String())
	}
	if len(res.Daemons) < 3 {
		t.Fatalf("want the valid objects resolved, got %d", len(res.Daemons))
	}
}

func TestInlineValueWarns(t *testing.T) {
	p := writeFile(t, t.TempDir(), "d.yaml", strings.Replace(discordDoc("a", ""), "{fromEnv: TEST_DISCORD_TOKEN}", "{value: abc}", 1))
	res := LoadOnce(p)
	if !res.Valid() {
		t.Fatal(issueStrings(res.Errors))
	}
	if got := issueStrings(res.Warnings); !strings.Contains(got, "d.yaml[0]: spec.discord.botToken.value: the token is written in the spec file; move it to fromEnv or fromFile") {
		t.Errorf("warning = %q", got)
	}
}

// Tokens a service would refuse forever are caught by validate, with a
// message that says what is wrong and never quotes the token.
func TestTokenShapes(t *testing.T) {
	dir := t.TempDir()
	slack := writeFile(t, dir, "s.yaml", slackDoc("s"))
	discord := writeFile(t, dir, "d.yaml", discordDoc("d", ""))
	cases := []struct {
		name      string
		file      string
		env       map[string]string
		wantError string // "" when valid
	}{
		{"slack tokens right", slack, map[string]string{"TEST_SLACK_BOT": "xoxb-SECRET", "TEST_SLACK_APP": "xapp-SECRET"}, ""},
		{"slack tokens swapped", slack, map[string]string{"TEST_SLACK_BOT": "xapp-SECRET", "TEST_SLACK_APP": "xoxb-SECRET"},
			"spec.slack.botToken: Invalid value: is an app-level token (xapp-); a bot token starts with xoxb-: are botToken and appToken swapped?"},
		{"slack app token is a bot token", slack, map[string]string{"TEST_SLACK_BOT": "xoxb-SECRET", "TEST_SLACK_APP": "xoxb-SECRET"},
			"spec.slack.appToken: Invalid value: is a bot token (xoxb-)"},
		{"discord token alone", discord, map[string]string{"TEST_DISCORD_TOKEN": "SECRET.token"}, ""},
		{"discord token with its Bot prefix", discord, map[string]string{"TEST_DISCORD_TOKEN": "Bot SECRET.token"},
			`spec.discord.botToken: Invalid value: starts with "Bot "`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			got := issueStrings(LoadOnce(tc.file).Errors)
			switch {
			case tc.wantError == "" && got != "":
				t.Fatalf("refused: %s", got)
			case tc.wantError != "" && !strings.Contains(got, tc.wantError):
				t.Fatalf("errors %q, want %q", got, tc.wantError)
			case strings.Contains(got, "SECRET"):
				t.Fatalf("an error quotes the token: %s", got)
			}
		})
	}
}
