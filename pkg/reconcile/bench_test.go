package reconcile

import (
	"context"
	"fmt"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/platform"
	"gjc.dev/reconciler/pkg/spec"
)

// BenchmarkSteadyPass: one pass over 1,000 healthy records, each owned by a
// live `sleep` process: read, prove the incarnation, classify, attach, and
// write status.json. Nothing is spawned or signalled.
func BenchmarkSteadyPass(b *testing.B) {
	const n = 1000
	agentDir := b.TempDir()
	res := &spec.Result{}
	now := time.Now().UnixMilli()
	for i := range n {
		cmd := exec.Command("sleep", "600")
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		inc, err := platform.Incarnation(cmd.Process.Pid)
		if err != nil {
			b.Fatal(err)
		}
		name := fmt.Sprintf("bot-%04d", i)
		cfg := spec.Config{Name: name, Provider: spec.ProviderDiscord, Generation: 3, State: spec.StateRunning, Verbosity: spec.VerbosityLean,
			ReadyTimeout: time.Second, GracefulTimeout: time.Second, KillTimeout: time.Second,
			Discord: &spec.DiscordConfig{BotToken: spec.NewSecret(name), ApplicationID: "a", GuildID: "g", ParentChannelID: "p"}}
		d := &spec.Daemon{Config: cfg, Identity: cfg.Identity()}
		res.Daemons = append(res.Daemons, d)
		paths := ownership.PathsFor(agentDir, name)
		if err := os.MkdirAll(paths.Dir, 0o700); err != nil {
			b.Fatal(err)
		}
		// Heartbeats a minute ahead stay fresh for the whole benchmark.
		st := ownership.State{Version: 1, Kind: "discord", PID: cmd.Process.Pid, OwnerID: fmt.Sprintf("o-%d", i), Identity: d.Identity,
			Incarnation: inc, StartedAt: now, HeartbeatAt: now + 60_000, TransportHealthy: true, Generation: spec.Generation(3).Opt()}
		if err := os.WriteFile(paths.State, st.Marshal(), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	r, err := New(Options{AgentDir: agentDir, Executable: "/bin/false", Log: logr.Discard(), Store: fsstore.New(agentDir, fsstore.Options{})})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	if out := r.Pass(ctx, res); !out.Converged {
		b.Fatalf("not converged: %v", out.Reasons[:min(3, len(out.Reasons))])
	}
	b.ResetTimer()
	for b.Loop() {
		if out := r.Pass(ctx, res); !out.Converged {
			b.Fatal("not converged")
		}
	}
}
