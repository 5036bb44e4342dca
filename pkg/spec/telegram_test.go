package spec

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
)

const testTelegramToken = "123456789:AAbbCCddEEffGGhhIIjjKKllMMnnOOpp_-Q"

func telegramDoc(name, extra string) string {
	return header + "metadata:\n  name: " + name + "\nspec:\n  provider: telegram\n  telegram:\n    botToken: {fromEnv: TEST_TELEGRAM_TOKEN}\n    chatId: \"-1001234567890\"\n" + extra
}

func TestValidateTelegram(t *testing.T) {
	cases := []struct {
		name, token, doc string
		want             []string // empty: valid
	}{
		{"valid", testTelegramToken, telegramDoc("tg", ""), nil},
		{"valid with users and url", testTelegramToken, telegramDoc("tg", "    authorizedUserIds: [\"42\", \"7\"]\n    apiURL: http://127.0.0.1:9\n"), nil},
		{"block missing", testTelegramToken, header + "metadata: {name: a}\nspec: {provider: telegram}\n", []string{"spec.telegram: Required value"}},
		{"other block", testTelegramToken, discordDoc("a", "") + "  telegram: {chatId: \"-1001\"}\n", []string{`spec.telegram: Forbidden: provider is "discord"`}},
		{"chat missing", testTelegramToken, strings.Replace(telegramDoc("a", ""), "    chatId: \"-1001234567890\"\n", "", 1), []string{"spec.telegram.chatId: Required value"}},
		{"basic group", testTelegramToken, strings.Replace(telegramDoc("a", ""), "-1001234567890", "-4567890", 1), []string{`spec.telegram.chatId: Invalid value: "-4567890": must be a supergroup's id`}},
		{"private chat", testTelegramToken, strings.Replace(telegramDoc("a", ""), "-1001234567890", "4567890", 1), []string{`spec.telegram.chatId: Invalid value: "4567890"`}},
		{"user not digits", testTelegramToken, telegramDoc("a", "    authorizedUserIds: [\"@me\"]\n"), []string{`spec.telegram.authorizedUserIds[0]: Invalid value: "@me": must be a Telegram user id`}},
		{"user repeated", testTelegramToken, telegramDoc("a", "    authorizedUserIds: [\"1\", \"1\"]\n"), []string{`spec.telegram.authorizedUserIds[1]: Invalid value: "1": repeats index 0`}},
		{"no secret", testTelegramToken, strings.Replace(telegramDoc("a", ""), "{fromEnv: TEST_TELEGRAM_TOKEN}", "{}", 1), []string{"spec.telegram.botToken: Required value"}},
		{"token short", "123456789:short", telegramDoc("a", ""), []string{"spec.telegram.botToken: Invalid value: is ", "not a bot token as BotFather issues it"}},
		{"token without id", ":AAbbCCddEEffGGhhIIjjKKllMMnnOOpp_-Q", telegramDoc("a", ""), []string{"not a bot token"}},
		{"token with bad char", "123456789:AAbbCCddEEffGGhhIIjjKKllMMnnOOpp_+Q", telegramDoc("a", ""), []string{"not a bot token"}},
		{"apiURL relative", testTelegramToken, telegramDoc("a", "    apiURL: /bot\n"), []string{"spec.telegram.apiURL: Invalid value"}},
		{"pace set", testTelegramToken, telegramDoc("a", "    postsPerMinute: 1200\n"), nil},
		{"pace at the bounds", testTelegramToken, telegramDoc("a", "    postsPerMinute: 60000\n"), nil},
		{"pace zero", testTelegramToken, telegramDoc("a", "    postsPerMinute: 0\n"), []string{"spec.telegram.postsPerMinute: Invalid value: 0: must be between 1 and 60000"}},
		{"pace too high", testTelegramToken, telegramDoc("a", "    postsPerMinute: 60001\n"), []string{"spec.telegram.postsPerMinute: Invalid value: 60001: must be between 1 and 60000"}},
		{"pace not a number", testTelegramToken, telegramDoc("a", "    postsPerMinute: fast\n"), []string{"postsPerMinute"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			setTokens(t)
			t.Setenv("TEST_TELEGRAM_TOKEN", tc.token)
			res := LoadOnce(writeFile(t, t.TempDir(), "d.yaml", tc.doc))
			got := issueStrings(res.Errors)
			if strings.Contains(got, tc.token) {
				t.Fatalf("an error quotes the token:\n%s", got)
			}
			if len(tc.want) == 0 {
				if !res.Valid() {
					t.Fatalf("want valid, got errors:\n%s", got)
				}
				return
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("want an error containing %q, got:\n%s", w, got)
				}
			}
		})
	}
}

func telegramConfig() Config {
	return Config{Verbosity: VerbosityLean, Telegram: &TelegramConfig{BotToken: NewSecret(testTelegramToken), ChatID: "-1001234567890"}}
}

// DESIGN 3: botToken, chatId, the sorted users joined with ",", redact,
// verbosity, then apiURL when set.
func TestTelegramIdentity(t *testing.T) {
	c := telegramConfig()
	c.Telegram.AuthorizedUserIDs = []string{"9", "10"}
	want := identityOf(testTelegramToken, "-1001234567890", "10,9", "false", "lean")
	if got := c.Identity(); got != want {
		t.Errorf("identity = %s, want %s", got, want)
	}
	c.Telegram.AuthorizedUserIDs = []string{"10", "9"}
	if got := c.Identity(); got != want {
		t.Error("the order of authorizedUserIds changes the identity")
	}
	c.Telegram.APIURL = "http://127.0.0.1:1"
	if got := c.Identity(); got != identityOf(testTelegramToken, "-1001234567890", "10,9", "false", "lean", "http://127.0.0.1:1") {
		t.Error("apiURL is not appended to the identity")
	}
	if got := c.AuthorizedUsers(); !slices.Equal(got, []string{"10", "9"}) {
		t.Errorf("AuthorizedUsers = %q", got)
	}
}

// postsPerMinute resolves to its default when absent; it joins the
// identity only when it differs from the default (DESIGN 3: a spec
// without it keeps its identity; changing it rolls the daemon, which
// is how a running daemon takes the new pace).
func TestTelegramPostsPerMinute(t *testing.T) {
	for _, tc := range []struct {
		name, extra string
		want        int
	}{
		{"absent", "", DefaultPostsPerMinute},
		{"set", "    postsPerMinute: 1200\n", 1200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setTokens(t)
			t.Setenv("TEST_TELEGRAM_TOKEN", testTelegramToken)
			res := LoadOnce(writeFile(t, t.TempDir(), "d.yaml", telegramDoc("tg", tc.extra)))
			if !res.Valid() {
				t.Fatalf("errors: %s", issueStrings(res.Errors))
			}
			if got := res.Daemons[0].Config.Telegram.PostsPerMinute; got != tc.want {
				t.Errorf("postsPerMinute = %d, want %d", got, tc.want)
			}
		})
	}
	c := telegramConfig()
	ref := c.Identity()
	c.Telegram.PostsPerMinute = DefaultPostsPerMinute
	if c.Identity() != ref {
		t.Error("the default postsPerMinute changes the identity")
	}
	c.Telegram.PostsPerMinute = 1200
	if got, want := c.Identity(), identityOf(testTelegramToken, "-1001234567890", "", "false", "lean", "postsPerMinute=1200"); got != want {
		t.Errorf("identity with postsPerMinute = %s, want %s", got, want)
	}
}

func TestTelegramWireRoundTrip(t *testing.T) {
	c := telegramConfig()
	c.Name, c.Provider = "tg", ProviderTelegram
	c.Telegram.AuthorizedUserIDs, c.Telegram.APIURL, c.Telegram.PostsPerMinute = []string{"5"}, "http://127.0.0.1:3", 600
	var buf bytes.Buffer
	if err := EncodeWire(&buf, &c); err != nil {
		t.Fatal(err)
	}
	got, err := DecodeWire(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got.Telegram == nil || got.Identity() != c.Identity() || got.Telegram.ChatID != c.Telegram.ChatID || got.Telegram.PostsPerMinute != 600 {
		t.Errorf("round trip changed the config: %+v -> %+v", c.Telegram, got.Telegram)
	}
}

func identityOf(values ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(values, "\x00")))
	return hex.EncodeToString(sum[:])[:16]
}
