package localapi

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/spec"
)

// A send's request is as strict as the others', with room for the
// largest message and not a byte more: each bad one is exit 2 and never
// reaches the backend.
func TestServerRefusesBadSendRequests(t *testing.T) {
	b := &fakeBackend{}
	dir := serveOn(t, NewServer(b, logr.Discard()))
	huge := []byte(`{"name":"d1","message":{"id":"a","session":"s","text":"` + strings.Repeat("x", MaxSendRequest) + `"}}`)
	for _, c := range []struct {
		name string
		body []byte
		says string
	}{
		{"not JSON", []byte(`name=d1`), "request to /v1/send"},
		{"truncated", []byte(`{"name":"d1","message":{"id":"a"`), "request to /v1/send"},
		{"unknown field", []byte(`{"name":"d1","nmae":"x","message":{"id":"a","session":"s"}}`), `unknown field "nmae"`},
		{"unknown message field", []byte(`{"name":"d1","message":{"id":"a","session":"s","channel":"c"}}`), `unknown field "channel"`},
		{"wrong type", []byte(`{"name":"d1","message":{"id":7,"session":"s"}}`), "cannot unmarshal number"},
		{"two values", []byte(`{"name":"d1"} {}`), "more than one JSON value"},
		{"too big", huge, "over " + strconv.Itoa(MaxSendRequest) + " bytes"},
	} {
		status, e := post(t, dir, http.MethodPost, PathSend, c.body)
		if status != http.StatusBadRequest || e.Code != exitUsage || !strings.Contains(e.Message, c.says) {
			t.Errorf("%s: %d %+v, want 400, exit 2, %q", c.name, status, e, c.says)
		}
	}
	if n := b.calls.Load(); n != 0 {
		t.Errorf("the backend was called %d times", n)
	}
	// Over the other endpoints' cap, within a send's: answered.
	big := []byte(`{"name":"d1","message":{"id":"a","session":"s","text":"` + strings.Repeat("x", bus.MaxTextSize) + `"}}`)
	if status, e := post(t, dir, http.MethodPost, PathSend, big); status != http.StatusOK {
		t.Errorf("a 1 MiB text: %d %+v, want 200", status, e)
	}
}

// checkMessage judges a request before anything is sent or written: the
// name and every field, each mistake exit 2 naming the field.
func TestCheckMessage(t *testing.T) {
	ok := bus.Message{ID: "m1", Session: "s:1", Text: "hi"}
	for _, c := range []struct {
		name string
		req  SendRequest
		says string // "" means accepted
	}{
		{"valid", SendRequest{Name: "d1", Message: ok}, ""},
		{"largest text", SendRequest{Name: "d1", Message: bus.Message{ID: "m", Session: "s", Text: strings.Repeat("<", bus.MaxTextSize)}}, ""},
		{"no name", SendRequest{Message: ok}, `"" is not a daemon name`},
		{"path as a name", SendRequest{Name: "../d1", Message: ok}, `"../d1" is not a daemon name`},
		{"no session", SendRequest{Name: "d1", Message: bus.Message{ID: "m1"}}, `message "m1": session: must match`},
		{"bad event", SendRequest{Name: "d1", Message: bus.Message{ID: "m1", Session: "s", Event: "edit"}}, "event: must be one of message, open, close, ask"},
		{"bad level", SendRequest{Name: "d1", Message: bus.Message{ID: "m1", Session: "s", Level: "debug"}}, "level: must be one of"},
		{"bad id", SendRequest{Name: "d1", Message: bus.Message{ID: "a/b", Session: "s"}}, `message "a/b": id: must match`},
		// <id>.json would be a temp name: written, then never read.
		{"id starting with a dot", SendRequest{Name: "d1", Message: bus.Message{ID: ".x", Session: "s"}}, `message ".x": id: ` + bus.IDRule},
		{"id dot", SendRequest{Name: "d1", Message: bus.Message{ID: ".", Session: "s"}}, `message ".": id: ` + bus.IDRule},
		{"id dot dot", SendRequest{Name: "d1", Message: bus.Message{ID: "..", Session: "s"}}, `message "..": id: ` + bus.IDRule},
		{"two fields", SendRequest{Name: "d1", Message: bus.Message{ID: "m1", Session: "s", Event: "x", Level: "y"}}, "event: must be one of message, open, close, ask; level:"},
		{"text over 1 MiB", SendRequest{Name: "d1", Message: bus.Message{ID: "m1", Session: "s", Text: strings.Repeat("x", bus.MaxTextSize+1)}}, "text: is 1048577 bytes"},
		{"text whose escapes are too big", SendRequest{Name: "d1", Message: bus.Message{ID: "m1", Session: "s", Text: strings.Repeat("\x01", bus.MaxTextSize)}}, "text: the message encodes to"},
	} {
		m, err := checkMessage(c.req)
		if c.says == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			} else if m.Event != bus.EventMessage || m.Level != bus.LevelInfo {
				t.Errorf("%s: defaults not applied: %+v", c.name, m)
			}
			continue
		}
		if ExitCode(err) != exitUsage || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v (exit %d), want exit 2 with %q", c.name, err, ExitCode(err), c.says)
		}
	}
	m, err := checkMessage(SendRequest{Name: "d1", Message: bus.Message{Session: "s"}})
	if err != nil || len(m.ID) != 26 {
		t.Errorf("no id: %+v, %v; want a new ULID", m, err)
	}
}

// A message is queued only for a name the spec declares; a spec that
// cannot be read here lets a daemon dir stand in for it.
func TestCheckSendName(t *testing.T) {
	valid := &spec.Result{Daemons: []*spec.Daemon{{Config: spec.Config{Name: "d1"}}}}
	invalid := &spec.Result{Errors: []spec.Issue{{File: "daemons.yaml", Field: "spec.discord.botToken", Detail: "E is not set"}}}
	for _, c := range []struct {
		name   string
		res    *spec.Result
		target string
		hasDir bool
		says   string // "" means accepted
	}{
		{"declared", valid, "d1", false, ""},
		{"declared, with a dir", valid, "d1", true, ""},
		{"undeclared", valid, "d2", false, `unknown daemon "d2": not in the spec`},
		{"undeclared, a dir left behind", valid, "d2", true, `unknown daemon "d2": not in the spec`},
		{"spec invalid here, a dir", invalid, "d1", true, ""},
		{"spec invalid here, no dir", invalid, "d1", false, "the spec is invalid as read here: 1 error(s)"},
	} {
		err := checkSendName(c.res, c.target, c.hasDir)
		if c.says == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if ExitCode(err) != exitUsage || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v (exit %d), want exit 2 with %q", c.name, err, ExitCode(err), c.says)
		}
	}
}

// sendWorld is an agent dir with a spec declaring d1 (an inline token:
// valid in any environment).
func sendWorld(t *testing.T) *Direct {
	t.Helper()
	dir := agentDir(t)
	path := filepath.Join(dir, "daemons.yaml")
	doc := `apiVersion: reconciler.gjc.dev/v1alpha1
kind: ChatDaemon
metadata:
  name: d1
spec:
  provider: slack
  generation: 1
  slack:
    botToken: {value: xoxb-inline}
    appToken: {value: xapp-inline}
    workspaceId: T1
    channelId: C1
`
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	if res := spec.LoadOnce(path); !res.Valid() {
		t.Fatalf("test spec invalid: %v", res.Errors)
	}
	return &Direct{AgentDir: dir, SpecPath: path, Log: logr.Discard()}
}

func outboxFiles(t *testing.T, d bus.Dirs) []string {
	t.Helper()
	entries, err := os.ReadDir(d.Outbox)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// Through the loop's socket to a backend that writes (Direct, as the loop
// does with its spec): the bus made private, the file the message, the
// same id again one file, other content exit 1 naming the id, an unknown
// name exit 2 with nothing made.
func TestSendThroughTheSocket(t *testing.T) {
	d := sendWorld(t)
	c := NewClient(serveOn(t, NewServer(d, logr.Discard())))
	// All < > &: json.Marshal's escapes would take this over the cap.
	text := strings.Repeat("<&>", bus.MaxTextSize/3)
	m := bus.Message{ID: "01J0SEND", Session: "agent:1", Event: bus.EventOpen, Title: "build", Text: text, Level: bus.LevelAction}
	resp, err := c.Send(t.Context(), SendRequest{Name: "d1", Message: m})
	if err != nil || resp.ID != m.ID {
		t.Fatalf("send: %+v, %v", resp, err)
	}
	dirs, err := bus.Paths(d.AgentDir, "d1")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dirs.Dir, dirs.Outbox, dirs.Sent, dirs.Failed, dirs.Inbox} {
		st, err := os.Lstat(p)
		if err != nil || !st.IsDir() || st.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v, %v; want a 0700 directory", p, st, err)
		}
	}
	got, err := bus.Read(filepath.Join(dirs.Outbox, m.ID+".json"))
	if err != nil || !got.Equal(m) {
		t.Fatalf("outbox file: %v; differs from the message sent", err)
	}
	if resp, err := c.Send(t.Context(), SendRequest{Name: "d1", Message: m}); err != nil || resp.ID != m.ID {
		t.Errorf("the same message again: %+v, %v", resp, err)
	}
	other := m
	other.Text = "other"
	_, err = c.Send(t.Context(), SendRequest{Name: "d1", Message: other})
	if ExitCode(err) != exitFailed || !strings.Contains(err.Error(), `"01J0SEND": id already used with different content`) {
		t.Errorf("the id with other content: %v (exit %d), want exit 1 naming the id", err, ExitCode(err))
	}
	if n := outboxFiles(t, dirs); len(n) != 1 {
		t.Errorf("outbox holds %v, want one file", n)
	}
	_, err = c.Send(t.Context(), SendRequest{Name: "d2", Message: bus.Message{ID: "x", Session: "s"}})
	if ExitCode(err) != exitUsage || !strings.Contains(err.Error(), `unknown daemon "d2": not in the spec`) {
		t.Errorf("unknown name: %v (exit %d), want exit 2", err, ExitCode(err))
	}
	if _, err := os.Lstat(filepath.Join(d.AgentDir, "sdk", "bus", "d2")); !os.IsNotExist(err) {
		t.Errorf("a bus was made for an unknown name: %v", err)
	}
}

// Without the spec's word (invalid as read here), a daemon dir is the
// name's only proof; a name with neither is refused.
func TestDirectSendWithAnInvalidSpec(t *testing.T) {
	d := sendWorld(t)
	if err := os.WriteFile(d.SpecPath, []byte("kind: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := bus.Message{ID: "m1", Session: "s"}
	if _, err := d.Send(t.Context(), SendRequest{Name: "d1", Message: m}); ExitCode(err) != exitUsage || !strings.Contains(err.Error(), "invalid as read here") {
		t.Fatalf("no dir: %v, want exit 2", err)
	}
	if err := os.MkdirAll(ownership.PathsFor(d.AgentDir, "d1").Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if resp, err := d.Send(t.Context(), SendRequest{Name: "d1", Message: m}); err != nil || resp.ID != "m1" {
		t.Fatalf("with a daemon dir: %+v, %v", resp, err)
	}
}
