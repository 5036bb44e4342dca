package reconcile

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gjc.dev/reconciler/pkg/spec"
)

// PassResult is what one full pass saw and did.
type PassResult struct {
	Status    *Status
	Converged bool
	// Reasons name every object that is not converged, one line each.
	Reasons []string
	// Unseen names the objects whose holder this pass could not see
	// (ReasonCannotExamine). A pass with any leaves status.json as it was:
	// what it would write is its own blindness, over the facts a
	// reconciler that can see the daemons wrote.
	Unseen []string
	// outcomes are the per-name results, for the loop to follow up on.
	outcomes map[string]Outcome
}

// Pass reconciles every name once, concurrently (one name's ready wait never
// delays another), then writes status.json. The caller holds the pass lock.
func (r *Reconciler) Pass(ctx context.Context, res *spec.Result) PassResult {
	start := time.Now()
	r.setDesired(res)
	names := r.Names(res)
	outcomes := make([]Outcome, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Go(func() { outcomes[i] = r.Reconcile(ctx, n, res.Lookup(n), res) })
	}
	wg.Wait()
	status := r.snapshot(res, names)
	var unseen []string
	for i, n := range names {
		if outcomes[i].Unseen {
			unseen = append(unseen, n)
		}
	}
	if len(unseen) == 0 {
		if err := writeStatus(r.opts.AgentDir, status); err != nil {
			r.log.Error(err, "writing status.json")
		}
	}
	out := summarize(status)
	out.Unseen = unseen
	out.outcomes = make(map[string]Outcome, len(names))
	for i, n := range names {
		out.outcomes[n] = outcomes[i]
	}
	r.opts.Hooks.passed(out, start)
	return out
}

// snapshot assembles status.json from the latest status of each name;
// names come sorted, from Names.
func (r *Reconciler) snapshot(res *spec.Result, names []string) *Status {
	s := newStatus(r.now(), res)
	s.Problems = r.takeProblems()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range names {
		if st, ok := r.names[n]; ok && st.status.Phase != "" {
			s.Daemons = append(s.Daemons, st.status)
		}
	}
	return s
}

// summarize applies DESIGN section 7's "converged": every Running object has
// a healthy owner at a generation >= desired, every Stopped object has none;
// Unmanaged names do not count; an invalid spec never converges.
func summarize(s *Status) PassResult {
	out := PassResult{Status: s, Converged: s.SpecValid}
	if !s.SpecValid {
		out.Reasons = append(out.Reasons, "spec: SpecInvalid: "+fmt.Sprint(len(s.SpecErrors))+" error(s); run reconciler validate")
	}
	for _, p := range s.Problems {
		out.Converged = false
		out.Reasons = append(out.Reasons, p.String())
	}
	for _, d := range s.Daemons {
		if d.Phase == PhaseUnmanaged || d.Converged {
			continue
		}
		out.Converged = false
		out.Reasons = append(out.Reasons, fmt.Sprintf("%s: %s: %s", d.Name, d.Reason, d.Message))
	}
	return out
}

// Ready counts the Running objects that have a healthy owner, and the
// Running objects there are: systemd's STATUS=<ready>/<desired> ready.
func (p PassResult) Ready() (ready, desired int) {
	for _, d := range p.Status.Daemons {
		if d.DesiredState != "Running" {
			continue
		}
		desired++
		if d.Converged && d.Phase == PhaseRunning {
			ready++
		}
	}
	return ready, desired
}

// saveStatus puts one name's status into status.json, keeping the others:
// an operator command reconciles one name, outside any pass. The caller
// holds the pass lock.
func (r *Reconciler) saveStatus(res *spec.Result, d DaemonStatus) error {
	r.rewrite.Lock()
	defer r.rewrite.Unlock()
	s, err := r.readStatus()
	if err != nil {
		s = newStatus(r.now(), res)
	}
	s.ObservedAt = metav1.NewTime(r.now())
	s.Problems = r.takeProblems()
	i, found := slices.BinarySearchFunc(s.Daemons, d.Name, func(e DaemonStatus, name string) int { return strings.Compare(e.Name, name) })
	if found {
		s.Daemons[i] = d
	} else {
		s.Daemons = slices.Insert(s.Daemons, i, d)
	}
	return writeStatus(r.opts.AgentDir, s)
}
