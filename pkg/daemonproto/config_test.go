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
	in, err := ConfigStdin(c, Secrets{})
	if err != nil {
		t.Fatal(err)
	}
	return pipeOf(t, in)
}

// pipeOf is a pipe that reads what in holds.
func pipeOf(t *testing.T, in io.Reader) *os.File {
	t.Helper()
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
	got, _, err := ReadConfig(stdinOf(t, want), "bot", 3)
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
		generation spec.Generation
	}{{"other", 3}, {"bot", 4}} {
		_, _, err := ReadConfig(stdinOf(t, testConfig()), tc.name, tc.generation)
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
	_, _, err = ReadConfig(r, "bot", 3)
	if err == nil || strings.Contains(err.Error(), testToken) || errors.Is(err, ErrConfigFromTerminal) {
		t.Errorf("ReadConfig of a truncated config: %v", err)
	}
}

const testPassword = "etcd-PASSWORD-proto-9c1d"

// The etcd password reaches the daemon on stdin after its config, and only
// when there is one: without it, stdin is the config alone, as before.
func TestSecretsFollowTheConfig(t *testing.T) {
	in, err := ConfigStdin(testConfig(), Secrets{EtcdPassword: testPassword})
	if err != nil {
		t.Fatal(err)
	}
	cfg, s, err := ReadConfig(pipeOf(t, in), "bot", 3)
	if err != nil || s.EtcdPassword != testPassword || cfg.Discord.BotToken.Reveal() != testToken {
		t.Fatalf("read back %+v, %+v, %v", cfg, s, err)
	}
	if _, s, err := ReadConfig(stdinOf(t, testConfig()), "bot", 3); err != nil || s != (Secrets{}) {
		t.Errorf("no secrets: %+v, %v", s, err)
	}
}

// A secrets line cut short, or not the reconciler's, is refused, never
// quoted: a daemon never runs on half of what its reconciler meant.
func TestReadConfigRefusesBrokenSecrets(t *testing.T) {
	var config strings.Builder
	if err := spec.EncodeWire(&config, testConfig()); err != nil {
		t.Fatal(err)
	}
	for name, line := range map[string]string{
		"cut short":     `{"etcdPassword":"` + testPassword + `"}`,
		"unknown field": `{"etcdPasword":"` + testPassword + `"}` + "\n",
		"empty object":  "{}\n",
		"two lines":     `{"etcdPassword":"` + testPassword + `"}` + "\n{}\n",
		"not JSON":      testPassword + "\n",
	} {
		_, _, err := ReadConfig(pipeOf(t, strings.NewReader(config.String()+line)), "bot", 3)
		if err == nil || strings.Contains(err.Error(), testPassword) || !strings.Contains(err.Error(), "secrets on stdin") {
			t.Errorf("%s: %v, want refused without the password", name, err)
		}
	}
}
