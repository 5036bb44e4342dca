package logging

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"go.uber.org/zap/zapcore"
)

func TestSameStream(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want bool
	}{
		{"8:1234", true},
		{"8:1235", false},
		{"9:1234", false},
		{"", false},
		{"8", false},
		{"8:1234x", false},
		{"x:1234", false},
	} {
		if got := sameStream(tc.env, 8, 1234); got != tc.want {
			t.Errorf("sameStream(%q, 8, 1234) = %v, want %v", tc.env, got, tc.want)
		}
	}
}

func TestSyslogPriority(t *testing.T) {
	for l, want := range map[zapcore.Level]string{
		zapcore.ErrorLevel: "<3>", zapcore.WarnLevel: "<4>", zapcore.InfoLevel: "<6>",
		zapcore.DebugLevel: "<7>", zapcore.Level(-3): "<7>", zapcore.DPanicLevel: "<2>",
	} {
		if got := syslogPriority(l); got != want {
			t.Errorf("syslogPriority(%v) = %q, want %q", l, got, want)
		}
	}
}

// The prefix goes on lines written to the stream JOURNAL_STREAM names, and on
// no other file: a daemon inherits the variable but logs to its own file.
func TestJournalPrefixOnlyOnJournalStream(t *testing.T) {
	dir := t.TempDir()
	journal, err := os.Create(filepath.Join(dir, "journal"))
	if err != nil {
		t.Fatal(err)
	}
	defer journal.Close()
	other, err := os.Create(filepath.Join(dir, "daemon.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	fi, err := journal.Stat()
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	t.Setenv("JOURNAL_STREAM", fmt.Sprintf("%d:%d", uint64(st.Dev), uint64(st.Ino)))

	for _, f := range []*os.File{journal, other} {
		log, err := New(f, FormatJSON, 1)
		if err != nil {
			t.Fatal(err)
		}
		log.Error(errors.New("boom"), "spec error")
		log.Info("pass done")
		log.V(1).Info("detail")
	}
	read := func(f *os.File) []string {
		data, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSpace(string(data)), "\n")
	}
	got := read(journal)
	for i, want := range []string{"<3>{", "<6>{", "<7>{"} {
		if i >= len(got) || !strings.HasPrefix(got[i], want) {
			t.Errorf("journal line %d = %q, want prefix %q", i, got, want)
		}
	}
	for _, line := range read(other) {
		if !strings.HasPrefix(line, "{") {
			t.Errorf("daemon.log line %q has a prefix: only journald's stream gets one", line)
		}
	}
}
