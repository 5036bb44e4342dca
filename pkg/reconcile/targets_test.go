package reconcile

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fakestore"
	"gjc.dev/reconciler/pkg/spec"
)

func TestSelectTargets(t *testing.T) {
	known := func(n string) bool { return n == "a" || n == "b" || n == "dironly" }
	all := func() ([]string, error) { return []string{"b", "a", "b", "inv"}, nil }
	broken := func() ([]string, error) { return nil, errors.New("inventory unreadable") }
	cases := []struct {
		name   string
		action string
		sel    Selection
		all    func() ([]string, error)
		want   []string
		usage  string // the usage error's text, or "" for none
		failed bool   // a non-usage error
	}{
		{"names in order, each once", ActionStop, Selection{Names: []string{"b", "a", "b"}}, all, []string{"b", "a"}, "", false},
		{"a name known by its dir", ActionStop, Selection{Names: []string{"dironly"}}, all, []string{"dironly"}, "", false},
		{"all, sorted and unique", ActionStop, Selection{All: true}, all, []string{"a", "b", "inv"}, "", false},
		{"all for start", ActionStart, Selection{All: true}, all, []string{"a", "b", "inv"}, "", false},
		{"one unknown", ActionStop, Selection{Names: []string{"a", "x"}}, all, nil, `unknown daemon "x": not in the spec and no daemon dir`, false},
		{"several unknown", ActionStart, Selection{Names: []string{"x", "a", "y", "x"}}, all, nil, `unknown daemons "x", "y": not in the spec and no daemon dir`, false},
		{"not a name", ActionRestart, Selection{Names: []string{"a", "x/../a"}}, all, nil, `"x/../a" is not a daemon name`, false},
		{"nothing named", ActionStop, Selection{}, all, nil, "stop: give at least one NAME, or --all", false},
		{"restart with nothing named", ActionRestart, Selection{}, all, nil, "restart: give at least one NAME", false},
		{"names and all", ActionStart, Selection{Names: []string{"a"}, All: true}, all, nil, "start: give names or --all, not both", false},
		{"restart --all", ActionRestart, Selection{All: true}, all, nil, "restart takes names, not --all", false},
		{"all, unreadable", ActionStop, Selection{All: true}, broken, nil, "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := selectTargets(c.action, c.sel, known, c.all, "not in the spec and no daemon dir")
			switch {
			case c.usage != "":
				if !IsUsage(err) || !strings.Contains(err.Error(), c.usage) {
					t.Errorf("err = %v, want the usage error %q", err, c.usage)
				}
			case c.failed:
				if err == nil || IsUsage(err) {
					t.Errorf("err = %v, want a failure that is not a usage error", err)
				}
			case err != nil:
				t.Errorf("err = %v", err)
			case !slices.Equal(got, c.want):
				t.Errorf("targets = %q, want %q", got, c.want)
			}
		})
	}
}

// --all reads the agent dir: stop's is the spec and the inventory (a daemon
// dir nothing manages is left alone), start's the spec and the holds.
func TestTargetsAll(t *testing.T) {
	r := fakeReconciler(t, fakestore.New().Store())
	dir := r.opts.AgentDir
	res := &spec.Result{Daemons: []*spec.Daemon{slackDaemon(0)}} // "bot"
	if err := os.WriteFile(InventoryPath(dir), []byte(`{"version":1,"names":["bot","gone"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(ownership.PathsFor(dir, "someone-elses").Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := r.setHold("held", &Hold{}); err != nil {
		t.Fatal(err)
	}
	for action, want := range map[string][]string{ActionStop: {"bot", "gone"}, ActionStart: {"bot", "held"}} {
		got, err := Targets(r.holds, dir, action, Selection{All: true}, res)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s --all = %q, %v; want %q", action, got, err, want)
		}
	}
	// A name known only by its dir can be named.
	if got, err := Targets(r.holds, dir, ActionStop, Selection{Names: []string{"someone-elses"}}, res); err != nil || len(got) != 1 {
		t.Errorf("stop someone-elses = %q, %v", got, err)
	}
}

// A start of a held name no spec declares any more lets go of the hold,
// so start --all can undo every stop --all.
func TestStartLetsGoOfAHoldOutsideTheSpec(t *testing.T) {
	r := fakeReconciler(t, fakestore.New().Store())
	if _, err := r.setHold("gone", &Hold{}); err != nil {
		t.Fatal(err)
	}
	res := &spec.Result{}
	if out := r.Start(t.Context(), "gone", nil, res); !out.OK || !strings.Contains(out.Message, "no longer held") {
		t.Errorf("start of a held name outside the spec: %+v", out)
	}
	if holds, err := r.holds.Holds(); err != nil || len(holds) != 0 {
		t.Errorf("holds after start: %v, %v", holds, err)
	}
	if out := r.Start(t.Context(), "gone", nil, res); out.OK {
		t.Errorf("start of a name neither held nor in the spec succeeded: %s", out.Message)
	}
}

// Commands on several names run at once; their holds.json rewrites must
// not lose one another's names.
func TestConcurrentHoldsKeepEveryName(t *testing.T) {
	r := fakeReconciler(t, fakestore.New().Store())
	names := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	eachName(names, func(n string) OperateResult {
		if _, err := r.setHold(n, &Hold{}); err != nil {
			t.Error(err)
		}
		return OperateResult{}
	})
	holds, err := r.holds.Holds()
	if err != nil || len(holds) != len(names) {
		t.Errorf("holds = %v, %v; want all of %q", holds, err, names)
	}
}

// A name the spec declares may be missing from a result that is invalid
// as read here (a shell without its fromEnv tokens, acting alone): the
// refusal says so, not only "not in the spec".
func TestTargetsUnknownNameOfAnInvalidSpec(t *testing.T) {
	dir := t.TempDir()
	invalid := &spec.Result{Errors: []spec.Issue{{File: "/s/daemons.yaml", Index: 0, Field: "spec.discord.botToken.fromEnv", Detail: "environment variable is not set"}}}
	for _, action := range []string{ActionStop, ActionStart, ActionRestart} {
		_, err := Targets(FileHolds(dir), dir, action, Selection{Names: []string{"discord"}}, invalid)
		if !IsUsage(err) || !strings.Contains(err.Error(), `unknown daemon "discord"`) || !strings.Contains(err.Error(), "the spec is invalid as read here: 1 error(s); run reconciler validate") {
			t.Errorf("%s discord on an invalid spec: %v", action, err)
		}
	}
	if _, err := Targets(FileHolds(dir), dir, ActionStop, Selection{Names: []string{"discord"}}, &spec.Result{}); err == nil || strings.Contains(err.Error(), "invalid") {
		t.Errorf("stop discord on a valid spec without it: %v", err)
	}
}
