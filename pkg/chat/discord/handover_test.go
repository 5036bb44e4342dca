package discord

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var handed = resumeState{SessionID: "0123456789abcdef", Seq: 42, URL: "wss://gateway-us-east1-b.discord.gg"}

// A handover is written 0600 and taken once: the second take finds
// nothing, whatever the first did with it.
func TestHandoverTakenOnce(t *testing.T) {
	dir := t.TempDir()
	id := tokenIdentity("tok-a")
	if err := writeHandover(dir, id, handed); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, HandoverFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("handover file %v, %v: want mode 0600", fi, err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, HandoverFile))
	if strings.Contains(string(data), "tok-a") {
		t.Fatalf("the handover file holds the token: %s", data)
	}
	r, err := takeHandover(dir, id)
	if err != nil || *r != handed {
		t.Fatalf("take = %+v, %v; want %+v", r, err, handed)
	}
	if _, err := takeHandover(dir, id); !errors.Is(err, errNoHandover) {
		t.Fatalf("second take = %v, want nothing left to take", err)
	}
}

// A handover of another token's session is refused, and consumed all
// the same: it can serve no one.
func TestHandoverOfAnotherToken(t *testing.T) {
	dir := t.TempDir()
	if err := writeHandover(dir, tokenIdentity("tok-a"), handed); err != nil {
		t.Fatal(err)
	}
	if r, err := takeHandover(dir, tokenIdentity("tok-b")); err == nil || !strings.Contains(err.Error(), "another bot token") {
		t.Fatalf("take by another token = %+v, %v; want refused", r, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, HandoverFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the refused file is still there: %v", err)
	}
}

// Every read of the file is untrusted.
func TestHandoverRefuses(t *testing.T) {
	id := tokenIdentity("tok-a")
	good := `{"token_identity":"` + id + `","session_id":"s1","seq":3,"resume_gateway_url":"wss://g.example"}`
	for _, tc := range []struct {
		name string
		make func(path string) error
		want string
	}{
		{"open to others", func(p string) error { return os.WriteFile(p, []byte(good), 0o644) }, "group or others"},
		{"a symbolic link", func(p string) error {
			target := p + ".target"
			if err := os.WriteFile(target, []byte(good), 0o600); err != nil {
				return err
			}
			return os.Symlink(target, p)
		}, "symbolic link"},
		{"a directory", func(p string) error { return os.Mkdir(p, 0o700) }, ""},
		{"too large", func(p string) error {
			return os.WriteFile(p, []byte(good[:len(good)-1]+`,"x":"`+strings.Repeat("x", handoverMax)+`"}`), 0o600)
		}, "over"},
		{"an unknown field", func(p string) error {
			return os.WriteFile(p, []byte(good[:len(good)-1]+`,"token":"x"}`), 0o600)
		}, "not a handover"},
		{"two objects", func(p string) error { return os.WriteFile(p, []byte(good+good), 0o600) }, "more than one"},
		{"not a websocket URL", func(p string) error {
			return os.WriteFile(p, []byte(strings.Replace(good, "wss://", "https://", 1)), 0o600)
		}, "no resumable session"},
		{"no session", func(p string) error {
			return os.WriteFile(p, []byte(strings.Replace(good, `"s1"`, `""`, 1)), 0o600)
		}, "no resumable session"},
		{"a negative sequence", func(p string) error {
			return os.WriteFile(p, []byte(strings.Replace(good, `"seq":3`, `"seq":-1`, 1)), 0o600)
		}, "no resumable session"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, HandoverFile)
			if err := tc.make(path); err != nil {
				t.Fatal(err)
			}
			r, err := takeHandover(dir, id)
			if err == nil || errors.Is(err, errNoHandover) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("take = %+v, %v; want refused (%q)", r, err, tc.want)
			}
		})
	}
	// The good one, to prove the cases above differ from it only as named.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, HandoverFile), []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	if r, err := takeHandover(dir, id); err != nil || r.SessionID != "s1" || r.Seq != 3 {
		t.Fatalf("take of a good file = %+v, %v", r, err)
	}
}
