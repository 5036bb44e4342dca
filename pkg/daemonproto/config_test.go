package daemonproto

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/spec"
)

const testToken = "discord-TOKEN-proto-1f2e"

func testConfig() *spec.Config {
	return &spec.Config{Name: "bot", Provider: spec.ProviderDiscord, Generation: 3, State: spec.StateRunning,
		Verbosity: spec.VerbosityLean, ReadyTimeout: spec.DefaultReadyTimeout,
		GracefulTimeout: spec.DefaultGracefulTimeout, KillTimeout: spec.DefaultKillTimeout,
		Discord: &spec.DiscordConfig{BotToken: spec.NewSecret(testToken), ApplicationID: "app", GuildID: "g", ParentChannelID: "c"}}
}

// stdinOf is what a daemon started with ConfigStdin(c) reads: a pipe.
func stdinOf(t *testing.T, c *spec.Config) *os.File {
	t.Helper()
	in, err := ConfigStdin(c)
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	go func() {
		_, _ = io.Copy(w, in)
		w.Close()
	}()
	return r
}

func TestConfigStdinIsWhatReadConfigReads(t *testing.T) {
	want := testConfig()
	got, err := ReadConfig(stdinOf(t, want), "bot", 3)
	if err != nil {
		t.Fatal(err)
	}
	if got.Identity() != want.Identity() || got.Discord.BotToken.Reveal() != testToken {
		t.Errorf("read back %+v, want %+v", got, want)
	}
}

func TestReadConfigRefusesAConfigOtherThanItsArgvSays(t *testing.T) {
	for _, tc := range []struct {
		name       string
		generation int64
	}{{"other", 3}, {"bot", 4}} {
		_, err := ReadConfig(stdinOf(t, testConfig()), tc.name, tc.generation)
		if err == nil {
			t.Errorf("%s at %d: accepted the config of bot at 3", tc.name, tc.generation)
			continue
		}
		if strings.Contains(err.Error(), testToken) {
			t.Errorf("the error quotes the token: %v", err)
		}
	}
}

func TestReadConfigNeverQuotesABrokenConfig(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		_, _ = io.WriteString(w, `{"name":"bot","discord":{"botToken":"`+testToken+`"`)
		w.Close()
	}()
	_, err = ReadConfig(r, "bot", 3)
	if err == nil || strings.Contains(err.Error(), testToken) || errors.Is(err, ErrConfigFromTerminal) {
		t.Errorf("ReadConfig of a truncated config: %v", err)
	}
}
