package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const header = "apiVersion: reconciler.gjc.dev/v1alpha1\nkind: ChatDaemon\n"

// discordDoc is a valid Discord object whose token comes from value.
func discordDoc(name, extra string) string {
	return header + "metadata:\n  name: " + name + "\nspec:\n  provider: discord\n  generation: 1\n" + extra +
		"  discord:\n    botToken: {fromEnv: TEST_DISCORD_TOKEN}\n    applicationId: app-1\n    guildId: guild-2\n    parentChannelId: chan-3\n"
}

func slackDoc(name string) string {
	return header + "metadata:\n  name: " + name + "\nspec:\n  provider: slack\n  slack:\n    botToken: {fromEnv: TEST_SLACK_BOT}\n    appToken: {fromEnv: TEST_SLACK_APP}\n    workspaceId: T1\n    channelId: C1\n"
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func setTokens(t *testing.T) {
	t.Setenv("TEST_DISCORD_TOKEN", "discord-secret-token-1")
	t.Setenv("TEST_SLACK_BOT", "xoxb-secret-bot-2")
	t.Setenv("TEST_SLACK_APP", "xapp-secret-app-3")
}

func issueStrings(is []Issue) string {
	var b strings.Builder
	for _, i := range is {
		b.WriteString(i.String())
		b.WriteByte('\n')
	}
	return b.String()
}
