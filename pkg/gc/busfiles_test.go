package gc

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
)

// A files/ entry no message names, over a day old, is stale: reported,
// and removed with Prune; one a message names, or a young one, stays.
func TestOrphanFilesOfABus(t *testing.T) {
	agent := t.TempDir()
	if err := os.MkdirAll(filepath.Join(agent, "sdk", "daemons", "bot"), 0o700); err != nil {
		t.Fatal(err)
	}
	d, err := bus.Paths(agent, "bot")
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.EnsureDirs(d); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-48 * time.Hour)
	for _, n := range []string{"orphan", "named", "young"} {
		p := filepath.Join(d.Files, n)
		if err := os.WriteFile(p, []byte(n), 0o600); err != nil {
			t.Fatal(err)
		}
		if n != "young" {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := bus.Write(d.Outbox, bus.Message{ID: "m", Session: "s", Attachments: []bus.Attachment{{File: "named", Name: "n"}}}); err != nil {
		t.Fatal(err)
	}
	for _, prune := range []bool{false, true} {
		rep, err := Run(Options{AgentDir: agent, Prune: prune})
		if err != nil {
			t.Fatal(err)
		}
		var got []Item
		for _, it := range rep.Items {
			if it.Kind == KindOrphanFile {
				got = append(got, it)
			}
		}
		want := map[bool]string{false: "would remove", true: "removed"}[prune]
		if len(got) != 1 || got[0].Path != filepath.Join(d.Files, "orphan") || !got[0].Stale || got[0].Action != want {
			t.Errorf("prune %v: orphan items %+v, want files/orphan %s", prune, got, want)
		}
	}
	ents, _ := os.ReadDir(d.Files)
	if len(ents) != 2 {
		t.Errorf("files/ holds %d entries after the prune, want named and young", len(ents))
	}
}
