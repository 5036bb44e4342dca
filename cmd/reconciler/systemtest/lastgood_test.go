package systemtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"

	"gjc.dev/reconciler/pkg/reconcile"
	"gjc.dev/reconciler/pkg/spec"
)

// breakSpec makes the first object of the spec fail validation twice over,
// written by rename as an editor would.
func (e *e2e) breakSpec() {
	e.t.Helper()
	data, err := os.ReadFile(e.specPath)
	if err != nil {
		e.t.Fatal(err)
	}
	bad := strings.Replace(string(data), "generation: 1", "generation: -1", 1)
	bad = strings.Replace(bad, "state: Running", "state: Runing", 1)
	if err := os.WriteFile(e.specPath+".tmp", []byte(bad), 0o600); err != nil {
		e.t.Fatal(err)
	}
	if err := os.Rename(e.specPath+".tmp", e.specPath); err != nil {
		e.t.Fatal(err)
	}
}

// owners is each name's ownerId now.
func (e *e2e) owners(names ...string) map[string]string {
	e.t.Helper()
	out := map[string]string{}
	for _, n := range names {
		out[n] = e.state(n).OwnerID
	}
	return out
}

// untouched fails unless each name still runs as the same owner, at
// generation 1.
func (e *e2e) untouched(before map[string]string) {
	e.t.Helper()
	for n, owner := range before {
		s := e.state(n)
		if s.OwnerID != owner || s.StoppedAt != nil || s.Generation != spec.Generation(1).Opt() {
			e.t.Errorf("%s: owner %s stopped %v generation %v; want %s still running at 1", n, s.OwnerID, s.StoppedAt != nil, s.Generation, owner)
		}
	}
}

// waitErrorLogs waits for an error-level "spec error" line naming each field.
func waitErrorLogs(t *testing.T, loop *loopProc, msg string, fields ...string) {
	t.Helper()
	loop.logs.waitLog(t, "spec errors at error level naming "+strings.Join(fields, ", "), func(lines []map[string]any) bool {
		for _, f := range fields {
			if !slices.ContainsFunc(lines, func(l map[string]any) bool {
				return l["level"] == "error" && l["msg"] == msg && strings.Contains(fmt.Sprint(l["error"]), f)
			}) {
				return false
			}
		}
		return true
	})
}

func specCondition(d reconcile.DaemonStatus) string {
	c := meta.FindStatusCondition(d.Conditions, reconcile.ConditionSpecValid)
	if c == nil {
		return "none"
	}
	return string(c.Status) + "/" + c.Reason
}

// DESIGN 6, "last known good survives restarts": a loop that saw the spec
// valid saves its objects (references, not tokens); started again on the
// broken spec, it keeps them from disk, says so on every screen, and
// leaves the running daemons alone; the fixed spec converges.
func TestLoopRestartOnBrokenSpecKeepsLastGood(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(bothBots...)
	first := e.startLoop()
	e.waitStatus("converged on the valid spec", func(s *reconcile.Status) bool { return s.SpecValid && summaryConverged(s, 2) })
	saved, err := os.ReadFile(reconcile.LastGoodPath(e.agentDir))
	if err != nil {
		t.Fatalf("the loop on a valid spec wrote no lastgood.json: %v", err)
	}
	for i, tok := range []string{discordToken, slackBot, slackApp} {
		if bytes.Contains(saved, []byte(tok)) {
			t.Fatalf("lastgood.json holds token %d of 3 (content not shown: it holds a token)", i+1)
		}
	}
	for _, ref := range []string{"E2E_DISCORD_TOKEN", "E2E_SLACK_BOT", "E2E_SLACK_APP", "fromEnv"} {
		if !bytes.Contains(saved, []byte(ref)) {
			t.Errorf("lastgood.json lacks the reference %s", ref)
		}
	}
	first.stop()
	before := e.owners("discord", "slack")

	e.breakSpec()
	sock, msgs := listenNotify(t)
	e.env = append(e.env, "NOTIFY_SOCKET="+sock)
	loop := e.startLoop()
	ready, _ := next(t, msgs, "READY=1")
	if !strings.Contains(ready.text, "spec invalid: 2 error(s)") {
		t.Errorf("READY on the broken spec sent %q; STATUS= must say the spec is invalid", ready.text)
	}
	// READY follows the first full pass: whatever it did is done.
	e.untouched(before)
	waitErrorLogs(t, loop, "spec error; keeping this file's last known good objects, from lastgood.json", "spec.generation", "spec.state")

	st := e.waitStatus("SpecValid False, kept from disk", func(s *reconcile.Status) bool {
		return !s.SpecValid && s.Keeping != nil && len(s.Daemons) == 2
	})
	if k := st.Keeping; len(k.Sources) != 1 || k.Sources[0].Kept != reconcile.KeptFromDisk || !slices.Equal(k.ActingOn, []string{"discord", "slack"}) {
		t.Errorf("keeping = %+v", st.Keeping)
	}
	for _, d := range st.Daemons {
		if got := specCondition(d); got != "False/"+reconcile.ReasonLastKnownGoodFromDisk || d.Phase != reconcile.PhaseRunning || !d.Converged {
			t.Errorf("%s: SpecValid %s, phase %s, converged %v; want False/LastKnownGoodFromDisk, Running at its generation", d.Name, got, d.Phase, d.Converged)
		}
	}
	r := runBinary(t, e.env, "status", "--agent-dir", e.agentDir)
	for _, want := range []string{"spec invalid: 2 error(s)", e.specPath + ": last known good objects kept, from lastgood.json", "acting only on: discord, slack"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("status lacks %q:\n%s", want, r.stdout)
		}
	}
	if now, _ := os.ReadFile(reconcile.LastGoodPath(e.agentDir)); !bytes.Equal(now, saved) {
		t.Errorf("a start on the broken spec rewrote lastgood.json (%d bytes, was %d)", len(now), len(saved))
	}

	e.writeSpec(bothBots...)
	e.waitStatus("SpecValid True and converged once fixed", func(s *reconcile.Status) bool {
		if !s.SpecValid || s.Keeping != nil || !summaryConverged(s, 2) {
			return false
		}
		for _, d := range s.Daemons {
			if specCondition(d) != "True/"+reconcile.ReasonSpecValid {
				return false
			}
		}
		return true
	})
	for {
		m, _ := next(t, msgs, "STATUS=")
		if !strings.Contains(m.text, "spec invalid") {
			if !strings.Contains(m.text, "STATUS=2/2 ready") {
				t.Errorf("after the fix STATUS= says %q", m.text)
			}
			break
		}
	}
	e.untouched(before)
}

// With no lastgood.json either, a loop started on a broken spec knows no
// name to be desired: it starts, stops and prunes nothing, and says that
// nothing was kept, instead of claiming it was.
func TestLoopOnBrokenSpecWithoutLastGoodTouchesNothing(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(bothBots...)
	e.mustConverge()
	if _, err := os.Stat(reconcile.LastGoodPath(e.agentDir)); err != nil {
		t.Fatalf("--once on a valid spec saved no lastgood.json: %v", err)
	}
	if err := os.Remove(reconcile.LastGoodPath(e.agentDir)); err != nil {
		t.Fatal(err)
	}
	before := e.owners("discord", "slack")
	inventory, err := os.ReadFile(reconcile.InventoryPath(e.agentDir))
	if err != nil {
		t.Fatal(err)
	}

	e.breakSpec()
	sock, msgs := listenNotify(t)
	e.env = append(e.env, "NOTIFY_SOCKET="+sock)
	loop := e.startLoop()
	ready, _ := next(t, msgs, "READY=1")
	if !strings.Contains(ready.text, "spec invalid") {
		t.Errorf("READY on the broken spec sent %q", ready.text)
	}
	e.untouched(before)
	waitErrorLogs(t, loop, "spec error; this file has no last known good: its daemons are neither started nor stopped", "spec.generation", "spec.state")
	st := e.waitStatus("SpecValid False, nothing kept", func(s *reconcile.Status) bool {
		return !s.SpecValid && s.Keeping != nil && len(s.Daemons) == 2
	})
	if k := st.Keeping; len(k.Sources) != 1 || k.Sources[0].Kept != reconcile.KeptNothing || len(k.ActingOn) != 0 {
		t.Errorf("keeping = %+v, want the file with nothing kept and no name acted on", st.Keeping)
	}
	for _, d := range st.Daemons {
		if got := specCondition(d); got != "False/"+reconcile.ReasonNoLastKnownGood || d.Reason != reconcile.ReasonPruneDeferred || d.Phase != reconcile.PhaseRunning {
			t.Errorf("%s: SpecValid %s, %s/%s; want False/NoLastKnownGood, Running/PruneDeferred", d.Name, got, d.Phase, d.Reason)
		}
	}
	r := runBinary(t, e.env, "status", "--agent-dir", e.agentDir)
	if strings.Contains(r.stdout, "kept,") || strings.Contains(r.stdout, "objects kept") {
		t.Errorf("status claims objects were kept:\n%s", r.stdout)
	}
	for _, want := range []string{e.specPath + ": nothing kept (no last known good)", "acting on no daemon"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("status lacks %q:\n%s", want, r.stdout)
		}
	}
	var js reconcile.Status
	if r := runBinary(t, e.env, "status", "-o", "json", "--agent-dir", e.agentDir); json.Unmarshal([]byte(r.stdout), &js) != nil || js.Keeping == nil || js.Keeping.Sources[0].Kept != reconcile.KeptNothing {
		t.Errorf("status -o json: keeping %+v\n%s", js.Keeping, r.stdout)
	}
	loop.stop()
	e.untouched(before)
	if now, _ := os.ReadFile(reconcile.InventoryPath(e.agentDir)); !bytes.Equal(now, inventory) {
		t.Errorf("inventory changed: %s -> %s", inventory, now)
	}
	if _, err := os.Stat(reconcile.LastGoodPath(e.agentDir)); !os.IsNotExist(err) {
		t.Errorf("with nothing to keep, lastgood.json was written: %v", err)
	}
}

// summaryConverged: n daemons, each converged and Running.
func summaryConverged(s *reconcile.Status, n int) bool {
	if len(s.Daemons) != n {
		return false
	}
	for _, d := range s.Daemons {
		if !d.Converged || d.Phase != reconcile.PhaseRunning {
			return false
		}
	}
	return true
}
