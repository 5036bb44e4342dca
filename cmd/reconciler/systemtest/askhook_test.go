package systemtest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
)

// hookScript is the "may I run this command?" hook of docs/decisions.md,
// as a reader copies it: the sh block that starts with #!/bin/sh.
func hookScript(t *testing.T) string {
	t.Helper()
	md, err := os.ReadFile("../../../docs/decisions.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(md), "```sh\n#!/bin/sh\n")
	script, _, closed := strings.Cut(rest, "```\n")
	if !ok || !closed {
		t.Fatal("docs/decisions.md holds no sh block starting with #!/bin/sh")
	}
	path := filepath.Join(t.TempDir(), "may-i-run")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script), 0o700); err != nil {
		t.Fatal(err)
	}
	return path
}

// The documented hook does what the page says: only Approve allows the
// command; Deny, an expiry and an ask that cannot be made deny it; a tool
// call that is not a shell command gets no opinion and asks nothing.
func TestDecisionsHookExample(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("the documented hook needs jq, which this machine lacks")
	}
	w := newAskWorld(t)
	script := hookScript(t)
	env := append(append([]string{}, w.env...), "PATH="+filepath.Dir(binary)+":"+os.Getenv("PATH"),
		"RECONCILER_AGENT_DIR="+w.agentDir, "MAY_I_RUN_BOT=slack")
	hook := func(session, tool, command string) *exec.Cmd {
		in, err := json.Marshal(map[string]any{"session_id": session, "tool_name": tool, "tool_input": map[string]string{"command": command}})
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(script)
		cmd.Env, cmd.Stdin = env, strings.NewReader(string(in))
		return cmd
	}
	type verdict struct {
		HookSpecificOutput struct {
			HookEventName, PermissionDecision, PermissionDecisionReason string
		}
	}
	check := func(name string, r result, decision, reason string) {
		t.Helper()
		var v verdict
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &v) != nil || v.HookSpecificOutput.HookEventName != "PreToolUse" ||
			v.HookSpecificOutput.PermissionDecision != decision || !strings.Contains(v.HookSpecificOutput.PermissionDecisionReason, reason) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %s saying %q", name, r.code, r.stdout, r.stderr, decision, reason)
		}
	}

	for _, c := range []struct {
		name, choice, decision, reason string
	}{
		{"approved", "Approve", "allow", "approved in chat"},
		{"denied", "Deny", "deny", "denied in chat (Deny)"},
		{"expired", bus.ChoiceExpired, "deny", "nobody decided"},
	} {
		session := "agent-" + c.name
		p, m := w.start(hook(session, "Bash", "rm -rf build/ && make"))
		if m.Session != session || m.Text != "May I run: rm -rf build/ && make" {
			t.Errorf("%s: the hook asked %+v", c.name, m)
		}
		user := "U42"
		if c.choice == bus.ChoiceExpired {
			user = ""
		}
		w.land(bus.Decision(session, m.ID, c.choice, user, time.Now()))
		check(c.name, p.result(t), c.decision, c.reason)
	}

	queued := len(w.asks())
	cmd := hook("agent-read", "Read", "")
	if r := runCmd(t, cmd); r.code != 0 || r.stdout != "" {
		t.Errorf("a Read call: exit %d, stdout %q; want no opinion", r.code, r.stdout)
	}
	check("a session ask refuses", runCmd(t, hook("not a session", "Bash", "ls")), "deny", "could not ask in chat (reconciler ask exited 2)")
	if n := len(w.asks()); n != queued {
		t.Errorf("%d asks queued by the calls that ask nothing, want %d", n-queued, 0)
	}
}
