package spec

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeClock drives a Loader's idea of now.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// A file that vanishes from a directory source keeps its objects through an
// editor's save; it counts as removed only once it stayed gone for the grace
// period and a later load still finds it gone.
func TestLoaderDirFileGoneGrace(t *testing.T) {
	setTokens(t)
	dir := t.TempDir()
	writeFile(t, dir, "a.yaml", discordDoc("discord", ""))
	b := writeFile(t, dir, "b.yaml", slackDoc("slack"))
	clock := &fakeClock{t: time.Now()}
	l := NewLoader(dir)
	l.now = clock.now
	if res := l.Load(); !res.Valid() || len(res.Daemons) != 2 {
		t.Fatalf("initial load: %s", issueStrings(res.Errors))
	}
	both := []string{"discord", "slack"}

	// A save: renamed away, then written again within the grace.
	if err := os.Rename(b, b+"~"); err != nil {
		t.Fatal(err)
	}
	res := l.Load()
	if res.Valid() || !slices.Equal(res.Names(), both) || !strings.Contains(issueStrings(res.Errors), b+": gone from the directory") {
		t.Fatalf("b gone: valid=%v names=%v errors=%s", res.Valid(), res.Names(), issueStrings(res.Errors))
	}
	if s := res.Sources[1]; s.File != b || s.Valid || !s.LastKnownGood {
		t.Errorf("b status = %+v, want invalid, last known good", s)
	}
	if got, want := l.NextLook(), clock.t.Add(DefaultRemoveGrace); !got.Equal(want) {
		t.Errorf("NextLook = %v, want the end of the grace %v", got, want)
	}
	clock.advance(DefaultRemoveGrace - time.Millisecond)
	if res := l.Load(); res.Valid() || !slices.Equal(res.Names(), both) {
		t.Fatalf("b gone, grace not over: valid=%v names=%v", res.Valid(), res.Names())
	}
	writeFile(t, dir, "b.yaml", slackDoc("slack"))
	clock.advance(time.Hour)
	if res := l.Load(); !res.Valid() || !slices.Equal(res.Names(), both) {
		t.Fatalf("b saved: valid=%v names=%v errors=%s", res.Valid(), res.Names(), issueStrings(res.Errors))
	}
	if at := l.NextLook(); !at.IsZero() {
		t.Errorf("NextLook = %v with no file gone", at)
	}

	// Really removed: pruned by the first load past the grace, counted from
	// the load that first found it gone, however late that was.
	if err := os.Remove(b); err != nil {
		t.Fatal(err)
	}
	clock.advance(time.Hour)
	if res := l.Load(); !slices.Equal(res.Names(), both) {
		t.Fatalf("b removed, first look: names=%v", res.Names())
	}
	clock.advance(DefaultRemoveGrace)
	if res := l.Load(); !res.Valid() || !slices.Equal(res.Names(), []string{"discord"}) {
		t.Fatalf("b removed past the grace: valid=%v names=%v errors=%s", res.Valid(), res.Names(), issueStrings(res.Errors))
	}
}
