package systemtest

import (
	"context"
	"fmt"
	"path"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/etcdstore"
	"gjc.dev/reconciler/pkg/reconcile"
)

// A stop that is refused holds nothing anywhere: in a fleet, a stop of a
// name whose record cannot be trusted is refused on every machine, nothing
// sent, and no hold is written in etcd, so once the record is fixed the
// loops start the name.
func TestFleetRefusedStopHoldsNothing(t *testing.T) {
	fl := newFleet(t, fleetOptions{}, object{name: "bot", provider: "discord", generation: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	record := path.Join(etcdstore.DefaultPrefix, "bot", ownership.StateFile)
	if _, err := fl.cli.Put(ctx, record, "not a record"); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		fl.start(fl.add(fmt.Sprintf("m%d", i+1)))
	}
	for _, m := range fl.machines {
		m.e.waitStatus("bot refused", func(st *reconcile.Status) bool {
			d, ok := daemonStatus(st, "bot")
			return ok && d.Phase == reconcile.PhaseRefused
		})
		r := runBinary(t, nil, append([]string{"stop", "bot", "--agent-dir", m.e.agentDir}, fl.args(m)...)...)
		if r.code != 1 || !strings.Contains(r.stdout, "refusing to signal") || strings.Contains(r.stdout, "held stopped") {
			t.Fatalf("stop on %s of a malformed record: exit %d, %q %q; want 1, refused, nothing held", m.id, r.code, r.stdout, r.stderr)
		}
	}
	if resp, err := fl.cli.Get(ctx, path.Join(etcdstore.DefaultPrefix, "bot", "hold")); err != nil || len(resp.Kvs) != 0 {
		t.Fatalf("a refused stop left a hold in etcd: %v, %v", resp, err)
	}
	if _, err := fl.cli.Delete(ctx, record); err != nil {
		t.Fatal(err)
	}
	waitDiscord(t, fl.f, "bot started once its record is fixed", func(s fakediscord.TokenStats) bool { return s.Live == 1 })
}
