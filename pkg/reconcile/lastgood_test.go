package reconcile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/spec"
)

func TestSpecValidCondition(t *testing.T) {
	e1 := spec.Issue{File: "/s/a.yaml", Index: 0, Field: "spec.x", Detail: "bad"}
	e2 := spec.Issue{File: "/s/b.yaml", Index: -1, Detail: "no such file"}
	for _, tc := range []struct {
		name   string
		res    *spec.Result
		status metav1.ConditionStatus
		reason string
		msg    []string
	}{
		{"no spec yet", nil, metav1.ConditionTrue, ReasonSpecValid, nil},
		{"valid", &spec.Result{Sources: []spec.SourceStatus{{File: "/s/a.yaml", Valid: true}}}, metav1.ConditionTrue, ReasonSpecValid, nil},
		{"kept in memory", &spec.Result{Errors: []spec.Issue{e1}, Sources: []spec.SourceStatus{{File: "/s/a.yaml", LastKnownGood: true}}},
			metav1.ConditionFalse, ReasonSpecInvalid, []string{"/s/a.yaml[0]: spec.x: bad", "last valid objects are kept"}},
		{"kept from disk", &spec.Result{Errors: []spec.Issue{e1}, Sources: []spec.SourceStatus{{File: "/s/a.yaml", LastKnownGood: true, FromDisk: true}}},
			metav1.ConditionFalse, ReasonLastKnownGoodFromDisk, []string{"/s/a.yaml keeps its last valid objects, from lastgood.json"}},
		{"nothing kept", &spec.Result{Errors: []spec.Issue{e1}, Sources: []spec.SourceStatus{{File: "/s/a.yaml"}}, LastGoodProblem: "version 9, want 1"},
			metav1.ConditionFalse, ReasonNoLastKnownGood, []string{"nothing kept for /s/a.yaml", "neither started nor stopped", "lastgood.json not used: version 9, want 1"}},
		{"one from disk, one with nothing: the worse", &spec.Result{Errors: []spec.Issue{e1, e2}, Sources: []spec.SourceStatus{
			{File: "/s/a.yaml", LastKnownGood: true, FromDisk: true}, {File: "/s/b.yaml"}}},
			metav1.ConditionFalse, ReasonNoLastKnownGood, []string{"(and 1 more; run reconciler validate)", "nothing kept for /s/b.yaml"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := specValidCondition(tc.res)
			if c.Type != ConditionSpecValid || c.Status != tc.status || c.Reason != tc.reason {
				t.Errorf("got %s=%s %s, want %s %s", c.Type, c.Status, c.Reason, tc.status, tc.reason)
			}
			for _, m := range tc.msg {
				if !strings.Contains(c.Message, m) {
					t.Errorf("message %q lacks %q", c.Message, m)
				}
			}
		})
	}
}

// status.json says "kept" only where something was, and which names are
// acted on.
func TestKeepingOf(t *testing.T) {
	d := func(name, file string) *spec.Daemon { return &spec.Daemon{Config: spec.Config{Name: name}, File: file} }
	res := &spec.Result{
		Errors:  []spec.Issue{{File: "/s/b.yaml"}},
		Daemons: []*spec.Daemon{d("a1", "/s/a.yaml"), d("b1", "/s/b.yaml"), d("c1", "/s/c.yaml")},
		Sources: []spec.SourceStatus{
			{File: "/s/a.yaml", Valid: true},
			{File: "/s/b.yaml", LastKnownGood: true, FromDisk: true},
			{File: "/s/c.yaml", LastKnownGood: true},
			{File: "/s/d.yaml"},
		},
		LastGoodProblem: "why",
	}
	k := keepingOf(res)
	want := []InvalidSource{
		{File: "/s/b.yaml", Kept: KeptFromDisk, Names: []string{"b1"}},
		{File: "/s/c.yaml", Kept: KeptInMemory, Names: []string{"c1"}},
		{File: "/s/d.yaml", Kept: KeptNothing},
	}
	if !slices.EqualFunc(k.Sources, want, func(a, b InvalidSource) bool {
		return a.File == b.File && a.Kept == b.Kept && slices.Equal(a.Names, b.Names)
	}) {
		t.Errorf("sources = %+v, want %+v", k.Sources, want)
	}
	if !slices.Equal(k.ActingOn, []string{"a1", "b1", "c1"}) || k.LastGoodProblem != "why" {
		t.Errorf("acting on %v, problem %q", k.ActingOn, k.LastGoodProblem)
	}
	if keepingOf(&spec.Result{}) != nil {
		t.Error("a valid result reports keeping")
	}
}

func TestSaveWanted(t *testing.T) {
	ours, _, err := spec.EncodeLastGood(&spec.Result{Source: "/s"})
	if err != nil {
		t.Fatal(err)
	}
	theirs, _, _ := spec.EncodeLastGood(&spec.Result{Source: "/other"})
	kept := []spec.KeptSource{{File: "/s/a.yaml"}}
	for _, tc := range []struct {
		name    string
		kept    []spec.KeptSource
		cur     []byte
		readErr error
		want    bool
	}{
		{"something kept, no file", kept, nil, os.ErrNotExist, true},
		{"something kept, a malformed file", kept, []byte("{"), nil, true},
		{"something kept, another source's", kept, theirs, nil, true},
		{"nothing kept, no file", nil, nil, os.ErrNotExist, false},
		{"nothing kept, this source's: emptied", nil, ours, nil, true},
		{"nothing kept, another source's: left", nil, theirs, nil, false},
		{"nothing kept, malformed: left to be looked at", nil, []byte("{"), nil, false},
		{"nothing kept, unreadable: left", nil, nil, errors.New("a symbolic link"), false},
	} {
		if got := saveWanted(&spec.Result{Source: "/s", Kept: tc.kept}, tc.cur, tc.readErr); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// countWrites counts the atomic writes of path from now until the test
// ends, by the fsyncs of their temp files.
func countWrites(t *testing.T, path string) func() int {
	var mu sync.Mutex
	writes := 0
	t.Cleanup(atomicfile.ObserveSyncs(func(kind, synced string) {
		if target, _, ok := atomicfile.ParseLeftover(filepath.Base(synced)); ok && kind == "file" &&
			filepath.Join(filepath.Dir(synced), target) == path {
			mu.Lock()
			writes++
			mu.Unlock()
		}
	}))
	return func() int {
		mu.Lock()
		defer mu.Unlock()
		return writes
	}
}

const lgDoc = "apiVersion: reconciler.gjc.dev/v1alpha1\nkind: ChatDaemon\nmetadata:\n  name: bot\nspec:\n  provider: discord\n  generation: %s\n  discord:\n    botToken: {fromEnv: LG_TEST_TOKEN}\n    applicationId: a\n    guildId: g\n    parentChannelId: c\n"

func writeLGSpec(t *testing.T, path, generation string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Replace(lgDoc, "%s", generation, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
}

// lastgood.json is written when what is kept changes, and only then: a
// spec that turns invalid keeps the same objects and rewrites nothing.
func TestSaveLastGoodOnlyWhenChanged(t *testing.T) {
	t.Setenv("LG_TEST_TOKEN", "lg-secret-token-value")
	agentDir := privateAgentDir(t)
	specPath := filepath.Join(t.TempDir(), "daemons.yaml")
	writes := countWrites(t, LastGoodPath(agentDir))
	r := &Reconciler{opts: Options{AgentDir: agentDir}, log: logr.Discard()}
	l := spec.NewLoader(specPath)

	writeLGSpec(t, specPath, "1")
	r.SaveLastGood(l.Load())
	r.SaveLastGood(l.Load())
	if n := writes(); n != 1 {
		t.Fatalf("%d writes for one content, want 1", n)
	}
	writeLGSpec(t, specPath, "x") // invalid: the same objects are kept
	if res := l.Load(); res.Valid() {
		t.Fatal("the broken spec validated")
	} else {
		r.SaveLastGood(res)
	}
	if n := writes(); n != 1 {
		t.Errorf("an invalid spec keeping the same objects rewrote lastgood.json (%d writes)", n)
	}
	writeLGSpec(t, specPath, "2")
	r.SaveLastGood(l.Load())
	data, err := os.ReadFile(LastGoodPath(agentDir))
	if n := writes(); err != nil || n != 2 || !bytes.Contains(data, []byte(`"generation": 2`)) {
		t.Fatalf("after a valid change: %d writes, generation 2 saved: %v, %v", n, bytes.Contains(data, []byte(`"generation": 2`)), err)
	}
	if bytes.Contains(data, []byte("lg-secret-token-value")) {
		t.Error("lastgood.json holds the token (content not shown)")
	}
	if fi, err := os.Stat(LastGoodPath(agentDir)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("lastgood.json mode: %v, %v", fi.Mode(), err)
	}
}

// A lastgood.json that cannot be trusted is logged at error level and not
// used: a broken file then keeps nothing, and results say why. The file is
// left as it is until a save replaces it.
func TestUntrustedLastGood(t *testing.T) {
	t.Setenv("LG_TEST_TOKEN", "lg-secret-token-value")
	for _, tc := range []struct {
		name string
		make func(t *testing.T, path string, good []byte)
		want string
	}{
		{"malformed", func(t *testing.T, p string, good []byte) { mustWrite(t, p, good[:len(good)/2]) }, "not the JSON this reconciler writes"},
		{"oversized", func(t *testing.T, p string, good []byte) {
			mustWrite(t, p, good)
			if err := os.Truncate(p, maxLastGoodFile+1); err != nil {
				t.Fatal(err)
			}
		}, "over"},
		{"a symbolic link to a good copy", func(t *testing.T, p string, good []byte) {
			target := filepath.Join(t.TempDir(), "elsewhere.json")
			mustWrite(t, target, good)
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
		}, "symbolic link"},
		{"a FIFO", func(t *testing.T, p string, _ []byte) {
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			agentDir := privateAgentDir(t)
			specPath := filepath.Join(t.TempDir(), "daemons.yaml")
			writeLGSpec(t, specPath, "1")
			good, _, err := spec.EncodeLastGood(spec.NewLoader(specPath).Load())
			if err != nil {
				t.Fatal(err)
			}
			path := LastGoodPath(agentDir)
			tc.make(t, path, good)
			before, _ := os.Lstat(path)
			writeLGSpec(t, specPath, "x")

			var logged errorLog
			l := spec.NewLoader(specPath)
			UseLastGood(agentDir, l, logged.logger())
			res := l.Load()
			if len(res.Daemons) != 0 || len(res.Keeping().Nothing) != 1 {
				t.Errorf("an untrusted lastgood.json was used: names %v, keeping %+v", res.Names(), res.Keeping())
			}
			if !strings.Contains(res.LastGoodProblem, tc.want) {
				t.Errorf("LastGoodProblem = %q, want it to say %q", res.LastGoodProblem, tc.want)
			}
			if c := specValidCondition(res); c.Reason != ReasonNoLastKnownGood || !strings.Contains(c.Message, tc.want) {
				t.Errorf("SpecValid %s: %q", c.Reason, c.Message)
			}
			if len(logged.lines) != 1 || !strings.Contains(logged.lines[0], tc.want) {
				t.Errorf("error log: %q, want one error saying %q", logged.lines, tc.want)
			}
			after, err := os.Lstat(path)
			if err != nil || !os.SameFile(before, after) || after.Size() != before.Size() {
				t.Errorf("the untrusted file was touched by reading it")
			}

			// Nothing to keep: the file stays to be looked at.
			r := &Reconciler{opts: Options{AgentDir: agentDir}, log: logr.Discard()}
			r.SaveLastGood(res)
			if after, err := os.Lstat(path); err != nil || !os.SameFile(before, after) {
				t.Errorf("a save with nothing kept replaced the untrusted file")
			}
			// A valid spec's save replaces it, a link by a file.
			writeLGSpec(t, specPath, "3")
			r.SaveLastGood(l.Load())
			data, err := atomicfile.ReadCapped(path, maxLastGoodFile)
			if err != nil || !bytes.Contains(data, []byte(`"generation": 3`)) {
				t.Errorf("after a valid save: generation 3 saved: %v, %v", bytes.Contains(data, []byte(`"generation": 3`)), err)
			}
		})
	}
}

func mustWrite(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
