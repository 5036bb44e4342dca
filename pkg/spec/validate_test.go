package spec

import (
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	setTokens(t)
	cases := []struct {
		name, doc string
		want      []string // empty: valid
	}{
		{"valid discord", discordDoc("discord", ""), nil},
		{"valid slack", slackDoc("slack-1"), nil},
		{"name missing", strings.Replace(discordDoc("x", ""), "  name: x\n", "", 1), []string{"metadata.name: Required value"}},
		{"name not a label", discordDoc("Discord_Bot", ""), []string{`metadata.name: Invalid value: "Discord_Bot": a lowercase RFC 1123 label`}},
		{"name too long", discordDoc(strings.Repeat("a", 64), ""), []string{"metadata.name: Invalid value", "must be no more than 63 characters"}},
		{"metadata.generation", strings.Replace(discordDoc("a", ""), "  name: a\n", "  name: a\n  generation: 3\n", 1), []string{"metadata.generation: Forbidden: set spec.generation"}},
		{"namespace", strings.Replace(discordDoc("a", ""), "  name: a\n", "  name: a\n  namespace: x\n", 1), []string{"metadata.namespace: Forbidden"}},
		{"negative generation", strings.Replace(discordDoc("a", ""), "generation: 1", "generation: -1", 1), []string{"spec.generation: Invalid value: -1: must be >= 0"}},
		{"unsafe generation", strings.Replace(discordDoc("a", ""), "generation: 1", "generation: 9007199254740992", 1), []string{"spec.generation: Invalid value: 9007199254740992: must be >= 0 and <= 9007199254740991"}},
		{"max safe generation", strings.Replace(discordDoc("a", ""), "generation: 1", "generation: 9007199254740991", 1), nil},
		{"provider missing", strings.Replace(discordDoc("a", ""), "  provider: discord\n", "", 1), []string{"spec.provider: Required value", "spec.discord: Forbidden"}},
		{"provider unknown", strings.Replace(discordDoc("a", ""), "provider: discord", "provider: teams", 1), []string{`spec.provider: Unsupported value: "teams": supported values: "discord", "slack"`}},
		{"state unknown", discordDoc("a", "  state: Paused\n"), []string{`spec.state: Unsupported value: "Paused"`}},
		{"verbosity unknown", discordDoc("a", "  verbosity: loud\n"), []string{`spec.verbosity: Unsupported value: "loud"`}},
		{"timeout too short", discordDoc("a", "  readyTimeout: 50ms\n"), []string{`spec.readyTimeout: Invalid value: "50ms": must be between 100ms and 10m0s`}},
		{"timeout too long", discordDoc("a", "  gracefulTimeout: 11m\n"), []string{`spec.gracefulTimeout: Invalid value: "11m0s": must be between 100ms and 10m0s`}},
		{"inboundSweep too short", discordDoc("a", "  inboundSweep: 5s\n"), []string{`spec.inboundSweep: Invalid value: "5s": must be between 10s and 1h0m0s`}},
		{"inboundSweep too long", discordDoc("a", "  inboundSweep: 2h\n"), []string{`spec.inboundSweep: Invalid value: "2h0m0s": must be between 10s and 1h0m0s`}},
		{"inboundSweep bounds ok", discordDoc("a", "  inboundSweep: 10s\n"), nil},
		{"timeout bounds ok", discordDoc("a", "  killTimeout: 100ms\n  readyTimeout: 10m\n"), nil},
		{"provider block missing", header + "metadata: {name: a}\nspec: {provider: slack}\n", []string{"spec.slack: Required value"}},
		{"other provider block", discordDoc("a", "  slack: {workspaceId: T}\n"), []string{`spec.slack: Forbidden: provider is "discord"`}},
		{"empty ids", header + "metadata: {name: a}\nspec:\n  provider: discord\n  discord:\n    botToken: {fromEnv: TEST_DISCORD_TOKEN}\n    authorizedUserIds: [\"u1\", \"\"]\n",
			[]string{"spec.discord.applicationId: Required value", "spec.discord.guildId: Required value", "spec.discord.parentChannelId: Required value", `spec.discord.authorizedUserIds[1]: Invalid value: "": must not be empty`}},
		{"slack ids", header + "metadata: {name: a}\nspec:\n  provider: slack\n  slack:\n    botToken: {fromEnv: TEST_SLACK_BOT}\n",
			[]string{"spec.slack.appToken: Required value", "spec.slack.workspaceId: Required value", "spec.slack.channelId: Required value"}},
		{"slack empty and repeated ids", slackDoc("a") + "    authorizedUserId: U1\n    authorizedUserIds: [U2, \"\", U3, U2]\n",
			[]string{`spec.slack.authorizedUserIds[1]: Invalid value: "": must not be empty`, `spec.slack.authorizedUserIds[3]: Invalid value: "U2": repeats index 0`}},
		{"discord repeated ids", discordDoc("a", "") + "    authorizedUserIds: [u1, u2, u1]\n",
			[]string{`spec.discord.authorizedUserIds[2]: Invalid value: "u1": repeats index 0`}},
		{"slack id in both forms", slackDoc("a") + "    authorizedUserId: U1\n    authorizedUserIds: [U1, U2]\n", nil},
		{"two secret sources", strings.Replace(discordDoc("a", ""), "{fromEnv: TEST_DISCORD_TOKEN}", "{fromEnv: TEST_DISCORD_TOKEN, fromFile: /x}", 1), []string{"spec.discord.botToken: Invalid value: set exactly one of"}},
		{"no secret source", strings.Replace(discordDoc("a", ""), "{fromEnv: TEST_DISCORD_TOKEN}", "{}", 1), []string{"spec.discord.botToken: Required value"}},
		{"apiURL relative", discordDoc("a", "") + "    apiURL: /api\n", []string{`spec.discord.apiURL: Invalid value: "/api": must be an absolute http or https URL`}},
		{"apiURL ok", discordDoc("a", "") + "    apiURL: http://127.0.0.1:9000\n", nil},
		{"apiURL ok with a slash", discordDoc("a", "") + "    apiURL: http://127.0.0.1:9000/\n", nil},
		{"discord apiURL with a path", discordDoc("a", "") + "    apiURL: http://127.0.0.1:9000/discord\n",
			[]string{`spec.discord.apiURL: Invalid value: "http://127.0.0.1:9000/discord": must be scheme://host[:port] only: a path is not supported for Discord`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := writeFile(t, dir, "d.yaml", tc.doc)
			res := LoadOnce(p)
			got := issueStrings(res.Errors)
			if len(tc.want) == 0 {
				if !res.Valid() {
					t.Fatalf("want valid, got errors:\n%s", got)
				}
				return
			}
			if res.Valid() {
				t.Fatalf("want errors %q, got valid", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("errors do not contain %q:\n%s", w, got)
				}
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	setTokens(t)
	p := writeFile(t, t.TempDir(), "d.yaml", strings.Replace(discordDoc("a", ""), "  generation: 1\n", "", 1))
	res := LoadOnce(p)
	if !res.Valid() || len(res.Daemons) != 1 {
		t.Fatalf("want one valid daemon, got %s", issueStrings(res.Errors))
	}
	c := res.Daemons[0].Config
	if c.Generation != 0 || c.State != StateRunning || c.Verbosity != VerbosityLean ||
		c.ReadyTimeout != DefaultReadyTimeout || c.GracefulTimeout != DefaultGracefulTimeout || c.KillTimeout != DefaultKillTimeout {
		t.Errorf("defaults not applied: %+v", c)
	}
}
