package providertest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"

	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/ownership"
)

// The crash tests run the daemon's relay in a child process and SIGKILL
// it from outside. The child builds the relay exactly as a daemon does
// (chat.NewRelay: the provider's real poster, the real bus under an agent
// dir, the spec's render rules) against the parent's fake. It does not
// run chat.RunDaemon: that adds the ownership claim and the transport's
// gateway or socket, neither of which takes part in posting, and a slower
// start on each of the hundreds of restarts of the randomized run.
//
// Its environment:
//
//	RELAY_CHILD         1: play the child
//	RELAY_URL           the fake's base URL
//	RELAY_DIR           the agent dir (the bus is under it)
//	RELAY_NONCE_WINDOW  the provider's nonce window (a duration)
//	RELAY_CRASH_AT      a labelled step, "part:accepted"; with
//	RELAY_CRASH_KEY     the key (or message id) it must match, and
//	RELAY_INBOUND_USER  when set, the inbound side runs too, this user
//	                    authorized (the crash steps include its landing's)
//	RELAY_MAX_INBOUND_FILE  the config's maxInboundFileBytes
//	RELAY_TRANSPORT     1: the provider's transport runs too, as it does
//	                    for a provider whose replies come only through it
//	                    (clicks always do)
//	RELAY_CRASH_MODE    crash: print "STEP <step> <key>" and block until
//	                    killed; pause: print it, then go on once a line
//	                    arrives on stdin.
//
// It prints "STARTED" once the relay settled (bus read, channel checked),
// and, running the transport, "TRANSPORT-READY" once it first connected.
const childEnv = "RELAY_CHILD"

// transportReady is the child's line once its transport connected: what
// is clicked before it would reach no one (a click is delivered to the
// bot's live connection).
const transportReady = "TRANSPORT-READY"

// crashWait bounds every wait of the crash tests.
const crashWait = 30 * time.Second

// fenceOnly is the claim the child's relay is fenced by: the name is
// always its own (no other daemon runs against the bus). NewRelay uses
// Fence alone.
type fenceOnly struct{ ownership.Claim }

func (fenceOnly) Fence() error { return nil }

// parentLines are the lines the parent writes on the child's stdin.
var parentLines = make(chan string, 1)

// followParent passes the parent's lines on, and ends the child when its
// stdin ends: the parent holds the pipe open until it exits, so a test
// binary that timed out or panicked leaves no child relay behind (one was
// found spinning on its dead fake an hour later).
func followParent() {
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		parentLines <- sc.Text()
	}
	os.Exit(3)
}

// exitChild says why the child ends, for the parent, and exits.
func exitChild(err error) {
	fmt.Fprintln(os.Stdout, "CHILD-ERROR", err)
	os.Exit(1)
}

// runChild runs the relay until it ends, which it never should: the
// parent kills it.
func runChild(s Subject) error {
	go followParent()
	url, dir := os.Getenv("RELAY_URL"), os.Getenv("RELAY_DIR")
	var o chat.RelayOptions
	o.MinBackoff, o.MaxBackoff = 5*time.Millisecond, 50*time.Millisecond
	// Past any of the tuned providers' request timeouts.
	o.Settle = 3 * time.Second
	var nonceWindow time.Duration
	if w := os.Getenv("RELAY_NONCE_WINDOW"); w != "" {
		d, err := time.ParseDuration(w)
		if err != nil {
			return fmt.Errorf("RELAY_NONCE_WINDOW: %w", err)
		}
		nonceWindow = d
	}
	var out sync.Mutex
	say := func(line string) {
		out.Lock()
		defer out.Unlock()
		fmt.Fprintln(os.Stdout, line)
	}
	if at := os.Getenv("RELAY_CRASH_AT"); at != "" {
		key, mode := os.Getenv("RELAY_CRASH_KEY"), os.Getenv("RELAY_CRASH_MODE")
		var once sync.Once
		o.Step = func(step, k string) {
			if step != at || k != key {
				return
			}
			once.Do(func() {
				say("STEP " + step + " " + k)
				if mode != "pause" {
					select {} // killed here
				}
				<-parentLines // "go"
			})
		}
		o.InboundStep = o.Step
	}
	user := os.Getenv("RELAY_INBOUND_USER")
	if user != "" {
		// The inbound side too, with no transport: it lands what the
		// history read at its start finds.
		o.Inbound = chat.NewInboundPort()
	}
	log := funcr.New(func(prefix, args string) { fmt.Fprintln(os.Stderr, prefix, args) }, funcr.Options{Verbosity: 1, LogTimestamp: true})
	// Clicks come only through the transport, as Telegram's replies do.
	if user != "" && (s.InboundByTransport || os.Getenv("RELAY_TRANSPORT") == "1") {
		o.Inbound = chat.NewInboundPortIn(ownership.PathsFor(dir, name).Dir)
		tr := s.Provider(nonceWindow).Transport(s.config(url, user), log, o.Inbound)
		var ready sync.Once
		go func() {
			_ = tr.Run(context.Background(), func(h chat.Health) {
				if h.Healthy {
					ready.Do(func() { say(transportReady) })
				}
			})
		}()
	}
	cfg := s.config(url, user)
	if v := os.Getenv("RELAY_MAX_INBOUND_FILE"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("RELAY_MAX_INBOUND_FILE: %w", err)
		}
		cfg.MaxInboundFileBytes = n
	}
	rc, err := chat.NewRelay(s.Provider(nonceWindow), cfg, dir, log, o)(fenceOnly{}, nil)
	if err != nil {
		return err
	}
	if err := rc.Start(context.Background()); err != nil {
		return err
	}
	// STARTED once the relay is ready to post (its bus read, its channel
	// checked): the parent's kill clock starts here, so a child whose
	// start-up outgrows the kill interval still gets its 100-400 ms of
	// posting, however long the journal has grown.
	for !rc.Settled() {
		select {
		case <-rc.RelayChanged():
		case <-rc.Done():
			return fmt.Errorf("the relay ended before it settled: %v", rc.Err())
		}
	}
	say("STARTED")
	log.Info("started")
	<-rc.Done()
	if err := rc.Err(); err != nil {
		return fmt.Errorf("the relay ended: %w", err)
	}
	return errors.New("the relay ended on its own, without an error")
}

// relayChild is one running child relay.
type relayChild struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	exited chan struct{}
	log    string // its stderr, a file
}

// startChild runs the top-level test top again as the child, over the
// agent dir dir.
func startChild(t *testing.T, top, dir string, env ...string) *relayChild {
	t.Helper()
	logDir := dir
	if keep := os.Getenv("RELAY_KEEP_LOGS"); keep != "" {
		logDir = keep // kept after the test, to read what the children did
	}
	logPath := filepath.Join(logDir, fmt.Sprintf("child-%d.log", time.Now().UnixNano()))
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^"+top+"$", "-test.timeout=0")
	cmd.Env = append(os.Environ(), append([]string{childEnv + "=1", "RELAY_DIR=" + dir}, env...)...)
	cmd.Stderr = logf
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &relayChild{cmd: cmd, stdin: stdin, lines: make(chan string, 64), exited: make(chan struct{}), log: logPath}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		_ = cmd.Wait()
		close(c.exited)
	}()
	t.Cleanup(func() { c.kill(t) })
	return c
}

// waitLine waits for a line of the child's starting with prefix.
func (c *relayChild) waitLine(ctx context.Context, prefix string) (string, error) {
	for {
		select {
		case l := <-c.lines:
			if strings.HasPrefix(l, prefix) {
				return l, nil
			}
			if strings.HasPrefix(l, "CHILD-ERROR") {
				return "", fmt.Errorf("child: %s", l)
			}
		case <-c.exited:
			return "", fmt.Errorf("the child exited before printing %q (%s)", prefix, c.tail())
		case <-ctx.Done():
			return "", fmt.Errorf("waiting for the child's %q: %w (%s)", prefix, ctx.Err(), c.tail())
		}
	}
}

// waitLines waits for a line of the child's starting with each prefix,
// in any order.
func (c *relayChild) waitLines(ctx context.Context, prefixes ...string) error {
	left := map[string]bool{}
	for _, p := range prefixes {
		left[p] = true
	}
	for len(left) > 0 {
		select {
		case l := <-c.lines:
			for p := range left {
				if strings.HasPrefix(l, p) {
					delete(left, p)
				}
			}
			if strings.HasPrefix(l, "CHILD-ERROR") {
				return fmt.Errorf("child: %s", l)
			}
		case <-c.exited:
			return fmt.Errorf("the child exited before printing %v (%s)", left, c.tail())
		case <-ctx.Done():
			return fmt.Errorf("waiting for the child's %v: %w (%s)", left, ctx.Err(), c.tail())
		}
	}
	return nil
}

// kill SIGKILLs the child and waits until it is gone.
func (c *relayChild) kill(t *testing.T) {
	select {
	case <-c.exited:
		return
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-c.exited:
	case <-time.After(crashWait):
		t.Errorf("child %d still there %s after SIGKILL", c.cmd.Process.Pid, crashWait)
	}
}

func (c *relayChild) tail() string {
	data, _ := os.ReadFile(c.log)
	if len(data) > 3000 {
		data = data[len(data)-3000:]
	}
	return "stderr tail:\n" + string(data)
}
