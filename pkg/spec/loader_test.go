package spec

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestLoaderDirectory(t *testing.T) {
	setTokens(t)
	dir := t.TempDir()
	writeFile(t, dir, "b.yml", slackDoc("slack"))
	writeFile(t, dir, "a.yaml", discordDoc("discord", ""))
	writeFile(t, dir, ".hidden.yaml", "not: [valid")
	writeFile(t, dir, "notes.txt", "not: [valid")
	if err := os.Mkdir(filepath.Join(dir, "sub.yaml"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "sub.yaml"), "c.yaml", "not: [valid")
	res := LoadOnce(dir)
	if !res.Valid() {
		t.Fatalf("errors: %s", issueStrings(res.Errors))
	}
	if got := res.Names(); !slices.Equal(got, []string{"discord", "slack"}) {
		t.Errorf("names = %v", got)
	}
	var files []string
	for _, s := range res.Sources {
		files = append(files, filepath.Base(s.File))
	}
	if !slices.Equal(files, []string{"a.yaml", "b.yml"}) {
		t.Errorf("sources = %v, want a.yaml, b.yml (sorted, hidden and non-yaml skipped, not recursive)", files)
	}
}

// A file caught empty mid-write keeps its objects instead of removing them.
func TestLoaderEmptyFileIsAFailedRead(t *testing.T) {
	setTokens(t)
	dir := t.TempDir()
	p := writeFile(t, dir, "a.yaml", discordDoc("discord", ""))
	l := NewLoader(p)
	l.Load()
	writeFile(t, dir, "a.yaml", "")
	res := l.Load()
	if res.Valid() || !slices.Equal(res.Names(), []string{"discord"}) || !strings.Contains(issueStrings(res.Errors), "file is empty") {
		t.Errorf("empty file: valid=%v names=%v errors=%s", res.Valid(), res.Names(), issueStrings(res.Errors))
	}
}

func TestLoaderMissingSource(t *testing.T) {
	res := LoadOnce(filepath.Join(t.TempDir(), "daemons.yaml"))
	if res.Valid() || !strings.Contains(issueStrings(res.Errors), "daemons.yaml: no such file or directory") {
		t.Errorf("got %q", issueStrings(res.Errors))
	}
}

func TestLoaderDuplicateNames(t *testing.T) {
	setTokens(t)
	dir := t.TempDir()
	a := writeFile(t, dir, "a.yaml", discordDoc("bot", "")+"---\n"+slackDoc("other"))
	b := writeFile(t, dir, "b.yaml", slackDoc("x")+"---\n"+slackDoc("bot"))
	res := LoadOnce(dir)
	got := issueStrings(res.Errors)
	for _, want := range []string{
		a + `[0]: metadata.name: Duplicate value: "bot": DuplicateName: also declared in ` + b + "[1]",
		b + `[1]: metadata.name: Duplicate value: "bot": DuplicateName: also declared in ` + a + "[0]",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("errors do not contain %q:\n%s", want, got)
		}
	}
	if len(res.Daemons) != 0 {
		t.Errorf("no file validated yet, but got daemons %v", res.Names())
	}
}

// A source that fails keeps what it last contributed; only a valid source removes.
func TestLoaderLastKnownGood(t *testing.T) {
	setTokens(t)
	dir := t.TempDir()
	a := writeFile(t, dir, "a.yaml", discordDoc("discord", ""))
	b := writeFile(t, dir, "b.yaml", slackDoc("slack"))
	l := NewLoader(dir)
	if res := l.Load(); !res.Valid() || len(res.Daemons) != 2 {
		t.Fatalf("initial load: %s", issueStrings(res.Errors))
	}

	// b breaks: it keeps its objects, and says so.
	writeFile(t, dir, "b.yaml", slackDoc("slack")+"  bogus: 1\n")
	res := l.Load()
	if res.Valid() || !slices.Equal(res.Names(), []string{"discord", "slack"}) {
		t.Fatalf("broken b: valid=%v names=%v", res.Valid(), res.Names())
	}
	if s := res.Sources[1]; s.Valid || !s.LastKnownGood {
		t.Errorf("b status = %+v, want invalid, last known good", s)
	}

	// a breaks too, while claiming b's name: nothing moves.
	writeFile(t, dir, "a.yaml", discordDoc("discord", "")+"---\n"+strings.Replace(discordDoc("slack", ""), "generation: 1", "generation: x", 1))
	res = l.Load()
	if !slices.Equal(res.Names(), []string{"discord", "slack"}) || res.Daemons[1].Config.Provider != ProviderSlack {
		t.Fatalf("both broken: names=%v", res.Names())
	}

	// a becomes valid but takes b's last known good name: refused as duplicate.
	writeFile(t, dir, "a.yaml", discordDoc("discord", "")+"---\n"+discordDoc("slack", ""))
	res = l.Load()
	if !strings.Contains(issueStrings(res.Errors), a+`[1]: metadata.name: Duplicate value: "slack"`) {
		t.Errorf("want a duplicate against b's last known good, got:\n%s", issueStrings(res.Errors))
	}
	if res.Daemons[1].Config.Provider != ProviderSlack {
		t.Errorf("slack was taken over: %+v", res.Daemons[1].Config)
	}

	// b is fixed and drops slack; a drops its copy: slack is removed by valid sources.
	writeFile(t, dir, "b.yaml", "# nothing declared here\n")
	writeFile(t, dir, "a.yaml", discordDoc("discord", ""))
	res = l.Load()
	if !res.Valid() || !slices.Equal(res.Names(), []string{"discord"}) {
		t.Fatalf("fixed: valid=%v names=%v errors=%s", res.Valid(), res.Names(), issueStrings(res.Errors))
	}

	// A removed file in a directory source removes its objects, once it has
	// stayed gone for the grace (see TestLoaderDirFileGoneGrace).
	writeFile(t, dir, "b.yaml", slackDoc("slack"))
	if got := l.Load().Names(); !slices.Equal(got, []string{"discord", "slack"}) {
		t.Fatalf("re-added: %v", got)
	}
	if err := os.Remove(b); err != nil {
		t.Fatal(err)
	}
	l.Load()
	l.now = func() time.Time { return time.Now().Add(DefaultRemoveGrace) }
	if got := l.Load().Names(); !slices.Equal(got, []string{"discord"}) {
		t.Fatalf("b removed: %v", got)
	}

	// The whole source vanishing is a failure, not an empty spec.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	res = l.Load()
	if res.Valid() || !slices.Equal(res.Names(), []string{"discord"}) {
		t.Fatalf("dir gone: valid=%v names=%v", res.Valid(), res.Names())
	}
}

// A reload with nothing changed returns the same result without re-reading.
func TestLoaderReloadUnchanged(t *testing.T) {
	setTokens(t)
	dir := t.TempDir()
	p := writeFile(t, dir, "a.yaml", discordDoc("discord", ""))
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	l := NewLoader(dir)
	first := l.Load()
	if second := l.Load(); second != first {
		t.Error("unchanged reload built a new result")
	}
	// Same size, same (old) mtime, different content: a new inode after rename.
	writeFile(t, dir, ".tmp", strings.Replace(discordDoc("discord", ""), "generation: 1", "generation: 2", 1))
	if err := os.Chtimes(filepath.Join(dir, ".tmp"), old, old); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, ".tmp"), p); err != nil {
		t.Fatal(err)
	}
	if got := l.Load().Daemons[0].Config.Generation; got != 2 {
		t.Errorf("generation = %d after a rename over the file, want 2", got)
	}
}

// A file written within the racy window is compared by content each time,
// so an in-place edit that keeps size and mtime is still seen.
func TestLoaderRacyEdit(t *testing.T) {
	setTokens(t)
	dir := t.TempDir()
	p := writeFile(t, dir, "a.yaml", discordDoc("discord", ""))
	l := NewLoader(dir)
	l.Load()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "a.yaml", strings.Replace(discordDoc("discord", ""), "generation: 1", "generation: 7", 1))
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if got := l.Load().Daemons[0].Config.Generation; got != 7 {
		t.Errorf("generation = %d, want 7", got)
	}
}

func TestLoaderSecretFileChange(t *testing.T) {
	dir := t.TempDir()
	tok := writeFile(t, dir, "token", "one")
	writeFile(t, dir, "a.yaml", fileTokenDoc("discord", "token"))
	l := NewLoader(filepath.Join(dir, "a.yaml"))
	id1 := l.Load().Daemons[0].Identity
	if err := os.WriteFile(tok, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	if id2 := l.Load().Daemons[0].Identity; id2 == id1 {
		t.Error("a changed token file did not change the identity")
	}
}
