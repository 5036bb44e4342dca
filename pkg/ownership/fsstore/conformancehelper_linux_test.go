package fsstore_test

import (
	"bufio"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"gjc.dev/reconciler/pkg/spec"
)

// The test binary doubles as the processes the conformance suite needs: run
// with helperEnv set, it is that helper instead. The switch is made in init,
// not TestMain, so this file needs nothing of the package's own TestMain.
const helperEnv = "FSSTORE_CONFORMANCE_HELPER"

// What an owner helper runs as, beside its command line (which is exactly a
// daemon's, so that the store's argv proof takes it for one).
const (
	kindEnv     = "FSSTORE_CONFORMANCE_KIND"
	identityEnv = "FSSTORE_CONFORMANCE_IDENTITY"
	stubbornEnv = "FSSTORE_CONFORMANCE_STUBBORN"
)

// markerSignal is a real-time signal a helper sends itself before it
// answers "report": Linux delivers pending signals lowest number first, so
// every signal sent to it before the question is taken in before the
// marker, and so before the answer.
const markerSignal = syscall.Signal(42)

// watchedSignals are what a helper notes rather than dies of; SIGKILL ends
// it, which a report sees as its exit.
var watchedSignals = []os.Signal{
	syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT,
	syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGCONT, syscall.SIGWINCH,
}

func init() {
	switch os.Getenv(helperEnv) {
	case "":
		return
	case "owner":
		os.Exit(runOwner())
	case "bystander":
		os.Exit(runBystander())
	default:
		fmt.Fprintf(os.Stderr, "unknown helper %q\n", os.Getenv(helperEnv))
		os.Exit(2)
	}
}

// signalLog notes the signals a helper received, by name.
type signalLog struct {
	sigs chan os.Signal
	seen []string
}

func newSignalLog() *signalLog {
	l := &signalLog{sigs: make(chan os.Signal, 64)}
	signal.Notify(l.sigs, append(watchedSignals, markerSignal)...)
	return l
}

// flush takes in every signal sent before it; on SIGTERM it calls onTerm
// and, if that says so, stops there (the helper is exiting).
func (l *signalLog) flush(onTerm func() bool) (exiting bool) {
	_ = syscall.Kill(os.Getpid(), markerSignal)
	for s := range l.sigs {
		if s == markerSignal {
			return false
		}
		if l.note(s, onTerm) {
			return true
		}
	}
	return false
}

// note records s, or for SIGTERM asks onTerm whether to exit instead.
func (l *signalLog) note(s os.Signal, onTerm func() bool) (exiting bool) {
	if s == syscall.SIGTERM && onTerm != nil && onTerm() {
		return true
	}
	l.seen = append(l.seen, s.String())
	return false
}

func (l *signalLog) answer(extra ...string) {
	all := append(append([]string(nil), l.seen...), extra...)
	if len(all) == 0 {
		fmt.Println("none")
		return
	}
	fmt.Println(strings.Join(all, ","))
}

// stdinLines delivers stdin's lines, closed at EOF (the test is done).
func stdinLines() <-chan string {
	lines := make(chan string)
	go func() {
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			lines <- in.Text()
		}
		close(lines)
	}()
	return lines
}

// runBystander is a process that owns nothing and is no daemon (its
// command line is the bare test binary): it notes every signal and, asked
// "report", says which it received.
func runBystander() int {
	l := newSignalLog()
	fmt.Println("ready")
	for line := range stdinLines() {
		if line == "report" {
			l.flush(nil)
			l.answer()
		}
	}
	return 0
}

// runOwner is a daemon as far as ownership goes: its command line is a
// daemon's, it acquires the name, heartbeats healthy once (a case is far
// shorter than the heartbeat TTL, and a beat of its own would make a
// rewritten record cost it its ownership mid-case), and on SIGTERM
// releases and exits, unless stubborn. Commands, one line each:
//
//	report  -> none | what it received (signals, a control request to it)
//	release -> released | err ...
func runOwner() int {
	l := newSignalLog()
	flags := map[string]string{}
	for i := 2; i+1 < len(os.Args); i += 2 {
		flags[strings.TrimPrefix(os.Args[i], "--")] = os.Args[i+1]
	}
	p := ownership.PathsFor(flags[daemonproto.FlagAgentDir], flags[daemonproto.FlagName])
	gen, err := strconv.ParseInt(flags[daemonproto.FlagGeneration], 10, 64)
	if err != nil {
		fmt.Println("err", err)
		return 2
	}
	o, err := fsstore.Acquire(p, ownership.AcquireRequest{
		Kind: os.Getenv(kindEnv), OwnerID: flags[daemonproto.FlagOwnerID],
		Identity: os.Getenv(identityEnv), Generation: spec.Generation(gen),
	})
	if err != nil {
		fmt.Println("err", strings.ReplaceAll(err.Error(), "\n", " "))
		return 3
	}
	if err := o.Renew(ownership.Heartbeat{TransportHealthy: true}); err != nil {
		fmt.Println("err", err)
		return 1
	}
	stubborn := os.Getenv(stubbornEnv) == "1"
	onTerm := func() bool {
		if stubborn {
			return false
		}
		_ = o.Release(nil)
		return true
	}
	fmt.Println("ready")
	lines := stdinLines()
	for {
		select {
		case s := <-l.sigs:
			if s != markerSignal && l.note(s, onTerm) {
				return 0
			}
		case line, ok := <-lines:
			switch {
			case !ok:
				return 0
			case line == "report":
				if l.flush(onTerm) {
					return 0
				}
				var extra []string
				if req, err := fsstore.ReadControl(p); err == nil && req != nil && o.ControlAddressed(*req) {
					extra = append(extra, "control request "+req.Action)
				}
				l.answer(extra...)
			case line == "release":
				if err := o.Release(nil); err != nil {
					fmt.Println("err", err)
					continue
				}
				fmt.Println("released")
			default:
				fmt.Printf("err unknown command %q\n", line)
			}
		}
	}
}
