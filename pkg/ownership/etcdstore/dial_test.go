package etcdstore

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Bad flags are refused before anything connects, each naming what is
// wrong, and never quoting a secret.
func TestDialRefusesBadOptions(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		o    DialOptions
		want string
	}{
		{"no endpoint", DialOptions{}, "no endpoint"},
		{"not a URL", DialOptions{Endpoints: []string{"127.0.0.1:2379"}}, "not an http:// or https://"},
		{"a path", DialOptions{Endpoints: []string{"http://127.0.0.1:2379/v3"}}, "not an http:// or https://"},
		{"credentials in the URL", DialOptions{Endpoints: []string{"http://root:s3cret-pw@127.0.0.1:2379"}}, "--etcd-endpoints (endpoint 1 of 1): http://127.0.0.1:2379 carries credentials"},
		{"a user in the URL", DialOptions{Endpoints: []string{"http://s3cret-pw@127.0.0.1:2379"}}, "carries credentials"},
		{"a password in the query", DialOptions{Endpoints: []string{"http://127.0.0.1:2379", "https://127.0.0.1:2380/?password=s3cret-pw"}}, "--etcd-endpoints (endpoint 2 of 2): https://127.0.0.1:2380 carries credentials"},
		{"a query without a slash", DialOptions{Endpoints: []string{"http://127.0.0.1:2379?user=root&password=s3cret-pw"}}, "carries credentials"},
		{"a fragment", DialOptions{Endpoints: []string{"http://127.0.0.1:2379#s3cret-pw"}}, "carries credentials"},
		{"an empty query", DialOptions{Endpoints: []string{"http://127.0.0.1:2379/?"}}, "carries credentials"},
		{"a query on a path", DialOptions{Endpoints: []string{"http://127.0.0.1:2379/v3?password=s3cret-pw"}}, `"http://127.0.0.1:2379/v3" is not an http://`},
		{"no scheme, with a password", DialOptions{Endpoints: []string{"root:s3cret-pw@127.0.0.1:2379"}}, "not shown: it may hold a secret"},
		{"a scheme without slashes, with a password", DialOptions{Endpoints: []string{"http:root:s3cret-pw@127.0.0.1:2379"}}, "not shown: it may hold a secret"},
		{"unparseable, with a secret", DialOptions{Endpoints: []string{"http://root:s3cret-pw@127.0.0.1:23 79"}}, "not shown: it may hold a secret"},
		{"password without user", DialOptions{Endpoints: []string{"http://127.0.0.1:2379"}, Password: "s3cret-pw"}, "without --etcd-user"},
		{"cert without key", DialOptions{Endpoints: []string{"https://127.0.0.1:2379"}, Cert: notPEM}, "go together"},
		{"CA not PEM", DialOptions{Endpoints: []string{"https://127.0.0.1:2379"}, CACert: notPEM}, "no PEM certificate"},
		{"CA a FIFO", DialOptions{Endpoints: []string{"https://127.0.0.1:2379"}, CACert: fifo}, "not a regular file"},
		{"CA missing", DialOptions{Endpoints: []string{"https://127.0.0.1:2379"}, CACert: filepath.Join(dir, "none")}, "no such file"},
		{"pair not PEM", DialOptions{Endpoints: []string{"https://127.0.0.1:2379"}, Cert: notPEM, Key: notPEM}, "not a certificate and its key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cli, err := Dial(c.o)
			if err == nil {
				_ = cli.Close()
				t.Fatalf("Dial(%+v) = nil, want an error saying %q", c.o, c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("Dial: %v; want it to say %q", err, c.want)
			}
			if strings.Contains(err.Error(), "s3cret-pw") {
				t.Errorf("Dial's error quotes the password: %v", err)
			}
		})
	}
}

func TestReadPassword(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if pw, err := ReadPassword(write("ok", "s3cret-pw\n")); err != nil || pw != "s3cret-pw" {
		t.Errorf("ReadPassword of one line = %q, %v", pw, err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, path := range map[string]string{
		"empty":     write("empty", "\n"),
		"two lines": write("two", "s3cret-pw\nmore\n"),
		"too big":   write("big", strings.Repeat("x", 5000)),
		"a FIFO":    fifo,
		"a dir":     dir,
	} {
		if pw, err := ReadPassword(path); err == nil {
			t.Errorf("ReadPassword of %s = %q, want an error", name, pw)
		} else if strings.Contains(err.Error(), "s3cret-pw") {
			t.Errorf("ReadPassword's error quotes the password: %v", err)
		}
	}
}
