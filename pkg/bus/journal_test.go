package bus

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func replayAll(t *testing.T, path string) []Record {
	t.Helper()
	var got []Record
	if err := ReplayJournal(path, func(r Record) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return got
}

func openJ(t *testing.T, path string) *Journal {
	t.Helper()
	j, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = j.Close() })
	return j
}

func TestJournalAppendReplay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal")
	j := openJ(t, path)
	recs := []Record{attempt("m1", "0"), done("m1", "0"), attempt("m1", "1")}
	if err := j.Append(context.Background(), recs[:2]...); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(context.Background(), recs[2]); err != nil {
		t.Fatal(err)
	}
	if st := j.Stats(); st.Records != 3 || st.Syncs != 2 {
		t.Fatalf("stats %+v, want 3 records in 2 syncs", st)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
	}
	got := replayAll(t, path)
	if fmt.Sprint(got) != fmt.Sprint(recs) {
		t.Fatalf("replayed %+v, want %+v", got, recs)
	}
	if err := j.Append(context.Background(), recs[0]); !errors.Is(err, ErrJournalClosed) {
		t.Fatalf("append after close: %v, want ErrJournalClosed", err)
	}
	// Reopened, it appends after what is there.
	j2 := openJ(t, path)
	if err := j2.Append(context.Background(), done("m1", "1")); err != nil {
		t.Fatal(err)
	}
	if got := replayAll(t, path); len(got) != 4 || got[3] != done("m1", "1") {
		t.Fatalf("after reopen: %+v", got)
	}
}

func TestJournalAppendRefusesInvalidAndWritesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal")
	j := openJ(t, path)
	bad := done("m1", "0")
	bad.Remote = ""
	if err := j.Append(context.Background(), attempt("m1", "0"), bad); err == nil {
		t.Fatal("invalid record appended")
	}
	if data, _ := os.ReadFile(path); len(data) != 0 {
		t.Fatalf("journal holds %q after a refused append", data)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := j.Append(ctx, attempt("m1", "0")); !errors.Is(err, context.Canceled) {
		t.Fatalf("append with a cancelled context: %v", err)
	}
}

// While one group is being written, every Append that comes in waits for
// the next, and all of them share its one fsync.
func TestJournalGroupCommitSharesOneSync(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal")
	j, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	j.beforeWrite = func() {
		once.Do(func() { close(entered); <-release })
	}
	const others = 15
	var wg sync.WaitGroup
	errs := make(chan error, others+1)
	appendOne := func(id string) {
		defer wg.Done()
		if err := j.Append(context.Background(), attempt(id, "0")); err != nil {
			errs <- err
		}
	}
	wg.Add(1)
	go appendOne("first")
	<-entered
	wg.Add(others)
	for i := range others {
		go appendOne(fmt.Sprint("other", i))
	}
	deadline := time.Now().Add(10 * time.Second)
	for pendingLines(j) < others {
		if time.Now().After(deadline) {
			t.Fatalf("only %d appends pending", pendingLines(j))
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if st := j.Stats(); st.Records != others+1 || st.Syncs != 2 {
		t.Fatalf("stats %+v, want %d records in 2 syncs", st, others+1)
	}
	if got := replayAll(t, path); len(got) != others+1 {
		t.Fatalf("replayed %d records", len(got))
	}
}

func pendingLines(j *Journal) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return strings.Count(string(j.pending), "\n")
}

func TestJournalConcurrentAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal")
	j := openJ(t, path)
	const writers, each = 16, 25
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if err := j.Append(context.Background(), attempt(fmt.Sprintf("w%d-%d", w, i), "0")); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	st := j.Stats()
	if st.Records != writers*each || st.Syncs > st.Records {
		t.Fatalf("stats %+v, want %d records in at most as many syncs", st, writers*each)
	}
	got := replayAll(t, path)
	seen := map[string]int{}
	for _, r := range got {
		seen[r.ID]++
	}
	if len(got) != writers*each || len(seen) != writers*each {
		t.Fatalf("replayed %d records, %d distinct, want %d", len(got), len(seen), writers*each)
	}
	t.Logf("%d records in %d fsyncs", st.Records, st.Syncs)
}

func TestJournalTornTail(t *testing.T) {
	tests := []struct {
		name     string
		tail     string
		wantTorn int64
	}{
		{"no tail", "", 0},
		{"half a record", `{"op":"attempt","id":"m9"`, 25},
		{"zeros", "\x00\x00\x00\x00", 4},
		{"one byte", "{", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "journal")
			whole, err := encodeRecords([]Record{attempt("m1", "0"), done("m1", "0")})
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, append(whole, tt.tail...), 0o600); err != nil {
				t.Fatal(err)
			}
			if got := replayAll(t, path); len(got) != 2 {
				t.Fatalf("replay with a torn tail: %d records, want 2", len(got))
			}
			j := openJ(t, path)
			if j.TornBytes() != tt.wantTorn {
				t.Fatalf("TornBytes %d, want %d", j.TornBytes(), tt.wantTorn)
			}
			if err := j.Append(context.Background(), attempt("m1", "1")); err != nil {
				t.Fatal(err)
			}
			got := replayAll(t, path)
			if len(got) != 3 || got[2] != attempt("m1", "1") {
				t.Fatalf("after the cut and an append: %+v", got)
			}
		})
	}
	t.Run("only a torn line", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "journal")
		if err := os.WriteFile(path, []byte(`{"op"`), 0o600); err != nil {
			t.Fatal(err)
		}
		if j := openJ(t, path); j.TornBytes() != 5 {
			t.Fatalf("TornBytes %d, want 5", j.TornBytes())
		}
		if data, _ := os.ReadFile(path); len(data) != 0 {
			t.Fatalf("left %q", data)
		}
	})
	t.Run("an unterminated tail over a line is refused", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "journal")
		data := []byte(strings.Repeat("x", MaxJournalLine+10))
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := OpenJournal(path); err == nil || !strings.Contains(err.Error(), "no newline") {
			t.Fatalf("want a refusal, got %v", err)
		}
		if got, _ := os.ReadFile(path); len(got) != len(data) {
			t.Fatal("the file was changed")
		}
	})
}

func TestReplayJournalBadLines(t *testing.T) {
	good, err := encodeRecords([]Record{attempt("m1", "0")})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, content, want string
	}{
		{"bad middle line", string(good) + "garbage\n" + string(good), "line 2: invalid character"},
		{"bad last line with newline", string(good) + string(good) + `{"op":"attempt"}` + "\n", "line 3:"},
		{"empty line", string(good) + "\n" + string(good), "line 2:"},
		{"invalid utf-8", "\xff\n", "line 1: not valid UTF-8"},
		{"unknown field", `{"op":"done","id":"m1","part":"root","session":"s","remote":"r","at":0,"extra":true}` + "\n", "line 1: unknown field"},
		{"over the cap", string(good) + strings.Repeat("a", MaxJournalLine+1) + "\n", "line 2: over"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "journal")
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			err := ReplayJournal(path, func(Record) error { return nil })
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("want error containing %q, got %v", tt.want, err)
			}
		})
	}
	t.Run("missing is empty", func(t *testing.T) {
		if got := replayAll(t, filepath.Join(t.TempDir(), "journal")); len(got) != 0 {
			t.Fatalf("got %v", got)
		}
	})
	t.Run("fn's error stops it", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "journal")
		if err := os.WriteFile(path, append(good, good...), 0o600); err != nil {
			t.Fatal(err)
		}
		stop := errors.New("stop")
		n := 0
		err := ReplayJournal(path, func(Record) error { n++; return stop })
		if err != stop || n != 1 {
			t.Fatalf("got %v after %d calls", err, n)
		}
	})
}

// unsafeJournals makes, at path, each thing a journal must not be.
var unsafeJournals = []struct {
	name, want string
	make       func(t *testing.T, path string)
}{
	{"symlink", "symbolic link", func(t *testing.T, path string) {
		target := filepath.Join(t.TempDir(), "target")
		if err := os.WriteFile(target, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
	}},
	{"dangling symlink", "symbolic link", func(t *testing.T, path string) {
		if err := os.Symlink(filepath.Join(t.TempDir(), "nowhere"), path); err != nil {
			t.Fatal(err)
		}
	}},
	{"fifo", "FIFO", func(t *testing.T, path string) {
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Fatal(err)
		}
	}},
	{"directory", "directory", func(t *testing.T, path string) {
		if err := os.Mkdir(path, 0o700); err != nil {
			t.Fatal(err)
		}
	}},
	{"another uid's", "owned by uid 4242", func(t *testing.T, path string) {
		if os.Geteuid() != 0 {
			t.Skip("giving a file to another uid needs root")
		}
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(path, 4242, 4242); err != nil {
			t.Fatal(err)
		}
	}},
	{"group-writable", "writable by group", func(t *testing.T, path string) {
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, 0o620); err != nil {
			t.Fatal(err)
		}
	}},
}

func TestJournalRefusesUnsafeFiles(t *testing.T) {
	ops := []struct {
		name string
		run  func(path string) error
	}{
		{"OpenJournal", func(path string) error {
			j, err := OpenJournal(path)
			if err == nil {
				_ = j.Close()
			}
			return err
		}},
		{"ReplayJournal", func(path string) error { return ReplayJournal(path, func(Record) error { return nil }) }},
		{"RewriteJournal", func(path string) error { return RewriteJournal(path, []Record{attempt("m1", "0")}) }},
	}
	for _, op := range ops {
		for _, u := range unsafeJournals {
			t.Run(op.name+"/"+u.name, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "journal")
				u.make(t, path)
				before, _ := os.Lstat(path)
				errc := make(chan error, 1)
				go func() { errc <- op.run(path) }()
				select {
				case err := <-errc:
					if !errors.Is(err, ErrUnsafeJournal) || !strings.Contains(err.Error(), u.want) {
						t.Fatalf("want ErrUnsafeJournal naming %q, got %v", u.want, err)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("blocked on it")
				}
				after, err := os.Lstat(path)
				if err != nil || after.Mode() != before.Mode() || !os.SameFile(before, after) {
					t.Fatalf("the path was changed: %v", err)
				}
			})
		}
	}
}

func TestRewriteJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal")
	j := openJ(t, path)
	for i := range 10 {
		if err := j.Append(context.Background(), attempt(fmt.Sprint("m", i), "0"), done(fmt.Sprint("m", i), "0")); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	keep := []Record{attempt("m9", "0"), done("m9", "0")}
	if err := RewriteJournal(path, keep); err != nil {
		t.Fatal(err)
	}
	if got := replayAll(t, path); fmt.Sprint(got) != fmt.Sprint(keep) {
		t.Fatalf("after rewrite: %+v", got)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v", fi.Mode(), err)
	}
	bad := []Record{attempt("m1", "0"), {Op: "x"}}
	if err := RewriteJournal(path, bad); err == nil {
		t.Fatal("rewrote with an invalid record")
	}
	if got := replayAll(t, path); fmt.Sprint(got) != fmt.Sprint(keep) {
		t.Fatalf("a refused rewrite changed the journal: %+v", got)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}
	if err := RewriteJournal(path, nil); err != nil {
		t.Fatal(err)
	}
	if got := replayAll(t, path); len(got) != 0 {
		t.Fatalf("rewrite to nothing left %v", got)
	}
}

// After a failed write nothing more is appended: what the file holds past
// its last fsync is unknown until it is reopened.
func TestJournalWriteFailureIsSticky(t *testing.T) {
	d := busDirs(t)
	j, err := OpenJournal(d.JournalPath())
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(context.Background(), attempt("m1", "0")); err != nil {
		t.Fatal(err)
	}
	if err := j.f.Close(); err != nil { // the descriptor fails under it
		t.Fatal(err)
	}
	if err := j.Append(context.Background(), attempt("m2", "0")); err == nil {
		t.Fatal("append to a closed descriptor succeeded")
	}
	if err := j.Append(context.Background(), attempt("m3", "0")); !errors.Is(err, ErrJournalClosed) {
		t.Fatalf("append after a failure: %v, want ErrJournalClosed", err)
	}
	_ = j.Close()
	if got := replayAll(t, d.JournalPath()); len(got) != 1 {
		t.Fatalf("replayed %+v", got)
	}
}

// A wake of the syncer with nothing pending (an Append's wake that arrives
// after its group was taken) must not leave pending sharing a buffer with
// the next group being written.
func TestJournalEmptyWakeKeepsBuffersApart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal")
	j := openJ(t, path)
	ctx := context.Background()
	if err := j.Append(ctx, attempt("m1", "0")); err != nil {
		t.Fatal(err)
	}
	woken := j.wakeups.Load()
	j.wake <- struct{}{} // nothing is pending
	deadline := time.Now().Add(10 * time.Second)
	for j.wakeups.Load() == woken {
		if time.Now().After(deadline) {
			t.Fatal("the syncer never looked")
		}
		time.Sleep(time.Millisecond)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	j.mu.Lock()
	j.beforeWrite = func() { once.Do(func() { close(entered); <-release }) }
	j.mu.Unlock()
	errs := make(chan error, 2)
	go func() { errs <- j.Append(ctx, attempt("m2", "0")) }()
	<-entered // m2's group is taken, its write held
	go func() { errs <- j.Append(ctx, attempt("m3", "0")) }()
	for pendingLines(j) < 1 {
		if time.Now().After(deadline) {
			t.Fatal("m3 never became pending")
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	got := replayAll(t, path)
	if want := []Record{attempt("m1", "0"), attempt("m2", "0"), attempt("m3", "0")}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("replayed %v, want %v", got, want)
	}
}
