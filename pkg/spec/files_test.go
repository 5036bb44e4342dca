package spec

import (
	"bytes"
	"strings"
	"testing"
)

// longTextAsFile (top level) and maxInboundFileBytes (each provider
// block, a quantity) load, resolve, validate with their field paths, and
// join the identity only when set.
func TestFilesFields(t *testing.T) {
	setTokens(t)
	t.Setenv("TEST_TG_TOKEN", "123456:AAbbccddeeffgghhiijjkkllmmnnooppqqr")
	tg := header + "metadata: {name: t}\nspec:\n  provider: telegram\n  telegram:\n    botToken: {fromEnv: TEST_TG_TOKEN}\n    chatId: \"-1001\"\n"
	cases := []struct {
		name, doc string
		long      int
		max       int64
		want      string // an error, "" for valid
	}{
		{"defaults", discordDoc("a", ""), 0, DefaultMaxInboundFileBytes, ""},
		{"set", discordDoc("a", "  longTextAsFile: 3\n") + "    maxInboundFileBytes: 25Mi\n", 3, 25 << 20, ""},
		{"plain bytes", slackDoc("a") + "    maxInboundFileBytes: 1048576\n", 0, 1 << 20, ""},
		{"telegram", tg + "    maxInboundFileBytes: 512Ki\n", 0, 512 << 10, ""},
		{"negative long", discordDoc("a", "  longTextAsFile: -1\n"), 0, 0, "spec.longTextAsFile: Invalid value: -1: must be between 0 (off) and 1000 parts"},
		{"too large", discordDoc("a", "") + "    maxInboundFileBytes: 2Gi\n", 0, 0, `spec.discord.maxInboundFileBytes: Invalid value: "2Gi": must be between 1 and 1Gi bytes`},
		{"zero", slackDoc("a") + "    maxInboundFileBytes: 0\n", 0, 0, `spec.slack.maxInboundFileBytes: Invalid value: "0": must be between 1 and 1Gi bytes`},
		{"fraction", tg + "    maxInboundFileBytes: 1500m\n", 0, 0, `spec.telegram.maxInboundFileBytes: Invalid value: "1500m": must be a whole number of bytes`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := LoadOnce(writeFile(t, t.TempDir(), "d.yaml", tc.doc))
			got := issueStrings(res.Errors)
			if tc.want != "" {
				if !strings.Contains(got, tc.want) {
					t.Fatalf("errors %q, want %q", got, tc.want)
				}
				return
			}
			if !res.Valid() || len(res.Daemons) != 1 {
				t.Fatalf("want valid, got %s", got)
			}
			c := res.Daemons[0].Config
			if c.LongTextAsFile != tc.long || c.MaxInboundFileBytes != tc.max {
				t.Errorf("resolved longTextAsFile %d, maxInboundFileBytes %d; want %d, %d", c.LongTextAsFile, c.MaxInboundFileBytes, tc.long, tc.max)
			}
			var buf bytes.Buffer
			if err := EncodeWire(&buf, &c); err != nil {
				t.Fatal(err)
			}
			back, err := DecodeWire(&buf)
			if err != nil || back.LongTextAsFile != tc.long || back.MaxInboundFileBytes != tc.max {
				t.Errorf("over the wire: %+v, %v", back, err)
			}
		})
	}
}

func TestFilesFieldsJoinTheIdentityOnlyWhenSet(t *testing.T) {
	base := func() Config {
		return Config{Verbosity: VerbosityLean, MaxInboundFileBytes: DefaultMaxInboundFileBytes, Discord: &DiscordConfig{
			BotToken: NewSecret("discord-token-123"), ApplicationID: "app-1", GuildID: "guild-2", ParentChannelID: "chan-3",
		}}
	}
	ref := base()
	if got, want := ref.Identity(), "7040273bec62d43f"; got != want {
		t.Errorf("identity without the files fields = %s, want the reference's %s", got, want)
	}
	long := base()
	long.LongTextAsFile = 2
	larger := base()
	larger.MaxInboundFileBytes = 20 << 20
	if long.Identity() == ref.Identity() || larger.Identity() == ref.Identity() || long.Identity() == larger.Identity() {
		t.Errorf("identities %s (ref), %s (longTextAsFile), %s (maxInboundFileBytes): want all different", ref.Identity(), long.Identity(), larger.Identity())
	}
}
