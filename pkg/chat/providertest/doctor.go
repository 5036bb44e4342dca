package providertest

import (
	"context"
	"slices"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/doctor"
)

// doctorChecks: against a fake that grants everything every check
// passes, in the order the subject declares, and nothing is posted; with
// one thing withheld at the fake (a refused token, a missing permission
// or scope), exactly that check fails, with what to do. Checks after a
// failed one may be left out (nothing can be asked with a refused token),
// but none of them fails.
func doctorChecks(t *testing.T, s Subject) {
	run := func(f Fake) []doctor.Line {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return s.Provider(0).Doctor(ctx, s.config(f.URL(), f.User()))
	}
	f := s.Start(t, 0)
	lines := run(f)
	var got []string
	for _, l := range lines {
		got = append(got, l.Check)
		if !l.OK {
			t.Errorf("against a fake that grants everything: %s: %s", l.Check, l.Says)
		}
	}
	if !slices.Equal(got, s.DoctorChecks) {
		t.Errorf("doctor checked %q, want %q", got, s.DoctorChecks)
	}
	if n := f.Messages(); n != 0 {
		t.Errorf("doctor left %d messages at the service; it must post nothing", n)
	}
	for _, check := range s.DoctorChecks {
		if check == "clock" {
			continue // the fakes' Date is the machine's own; doctor's tests skew it
		}
		f := s.Start(t, 0)
		f.Withhold(check)
		var failed []doctor.Line
		for _, l := range run(f) {
			if !l.OK {
				failed = append(failed, l)
			}
		}
		if len(failed) != 1 || failed[0].Check != check || failed[0].Says == "" {
			t.Errorf("with %q withheld, failed: %+v; want that check alone, with what to do", check, failed)
		}
	}
}
