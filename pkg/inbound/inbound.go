package inbound

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/bus"
)

// Service is a chat service as the inbound side uses it; the Discord and
// Slack adapters implement it.
type Service interface {
	// History calls fn with the messages of place, oldest first, that
	// come after the message after (exclusive) or, when after is "" or
	// older, that were sent since since; it pages as it needs to and stops
	// at fn's first error, which it returns.
	History(ctx context.Context, place, after string, since time.Time, fn func(Event) error) error
	// React adds the accepted-message reaction (👀) to message id in
	// place. Adding it again is success. An *PermanentError says it can
	// never be added (the message is gone, the bot may not react).
	React(ctx context.Context, place, id string) error
	// Fetch writes the content of f to w, with the bot's credentials and
	// only from the service's own file hosts (a URL elsewhere is a
	// *PermanentError, and nothing is requested from it). More than max
	// bytes is ErrTooLarge, after at most max+1 bytes were written.
	Fetch(ctx context.Context, f RemoteFile, max int64, w io.Writer) (n int64, err error)
}

// ErrTooLarge is Fetch's error for a file over its max.
var ErrTooLarge = errors.New("file over the size limit")

// PermanentError is a request the service refused for good.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// Sessions is what the relay knows of its sessions: which thread is whose.
type Sessions interface {
	// Loaded is closed once the relay rebuilt its state from its journal.
	Loaded() <-chan struct{}
	// SessionAt returns the session whose thread place is.
	SessionAt(place string) (session string, ok bool)
	// OpenPlaces returns the threads of the sessions not closed.
	OpenPlaces() []Place
}

// Place is a session's thread.
type Place struct{ Session, ID string }

// Options are what an Inbound needs.
type Options struct {
	Bus      bus.Dirs
	Service  Service
	Sessions Sessions
	// Authorized are the service's ids of the people whose replies land.
	// Empty: nobody's; history is then never read.
	Authorized []string
	// Fence proves, before a message lands, that this daemon still owns
	// its name.
	Fence func() error
	// Keep, when set, is told of each landing once its record is durable
	// and before its file is published, while the stage is there to read:
	// a fleet keeps the file to put in etcd for the other machines
	// (DESIGN 10), and must have it before a reader can take it. copied:
	// the file is here already, copied from the fleet (a reply the
	// previous owner landed, read again from history after a takeover):
	// the stage is dropped, not published a second time. An error leaves
	// the landing unpublished, as a failed publish does.
	Keep func(session, file string) (copied bool, err error)
	Log  logr.Logger
	// Window is how far back history is read, and how long a landed id is
	// remembered past that (DESIGN 5: 24 h).
	Window time.Duration
	// MinBackoff and MaxBackoff bound the waits after a failed request.
	MinBackoff, MaxBackoff time.Duration
	// Step, when set, is called at each labelled step of a landing
	// (StepStaged, StepRecorded, StepPublished): crash tests stop there.
	Step func(step, id string)
	// Changed, when set, is poked whenever Health changed.
	Changed func()
	// Now is the clock (tests); time.Now when nil.
	Now func() time.Time
	// Sweep is how often every open session's history is read besides
	// on connect (spec inboundSweep); 0: only on connect.
	Sweep time.Duration
	// Deaf, when set, is told why the live connection must be made
	// again: a sweep landed replies it did not deliver (sweep.go).
	Deaf func(why string)
	// MaxFileBytes is the most a file attached to a reply may hold (spec
	// maxInboundFileBytes); a larger one is listed skipped, not fetched.
	// 0: DefaultMaxFileBytes.
	MaxFileBytes int64
	// Relay is the bus the relay posts from (a fleet's shared one; zero:
	// Bus): an ask's question is read from there, to show its outcome
	// under it. The outcome itself is written to Bus's outbox, as any
	// producer on this machine writes.
	Relay bus.Dirs
}

// Steps of a landing, for Options.Step. A reply with files has two more:
// its files fetched into their stage, before the landing takes its lock,
// and their directory published, before the reply's file.
const (
	StepFetched        = "inbound-fetched"
	StepStaged         = "inbound-staged"
	StepRecorded       = "inbound-recorded"
	StepFilesPublished = "inbound-files-published"
	StepPublished      = "inbound-published"
)

// Inbound lands a daemon's inbound messages. It is a daemon component:
// Start, then Stop.
type Inbound struct {
	opts       Options
	authorized map[string]bool

	// mu serializes landings and guards what they change.
	mu        sync.Mutex
	j         *bus.InboundJournal // nil until ready, or after a failed append
	seen      map[string]seenMsg  // landed ids, by message id
	cursors   map[string]bus.InboundRecord
	unreacted map[string]bus.InboundRecord // landed, reaction not yet recorded
	owed      []owedReply                  // could not land yet, oldest first
	young     map[string]time.Time         // landed by a read too young to judge (sweep.go)
	heard     map[string]time.Time         // delivered live lately (sweep.go)
	asks      map[string]*askState         // by ask id (ask.go)
	fetching  map[string]chan struct{}     // replies whose files are being fetched, closed when done (files.go)
	closed    bool                         // stopped: the journal is closed for good
	health    Health

	ready   chan struct{} // closed once the journal was replayed
	reacts  chan struct{} // pokes the reaction worker
	history chan struct{} // pokes the history reader
	retry   chan struct{} // pokes the retry of owed replies
	expiry  chan struct{} // pokes the asks' expiry (expire.go)
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	done    chan struct{}
}

type seenMsg struct {
	rec       bus.InboundRecord
	published bool
}

// New returns an Inbound for opts; Start begins its work.
func New(opts Options) *Inbound {
	if opts.Window == 0 {
		opts.Window = 24 * time.Hour
	}
	if opts.MinBackoff == 0 {
		opts.MinBackoff = 500 * time.Millisecond
	}
	if opts.MaxBackoff == 0 {
		opts.MaxBackoff = 30 * time.Second
	}
	if opts.Fence == nil {
		opts.Fence = func() error { return nil }
	}
	if opts.Step == nil {
		opts.Step = func(string, string) {}
	}
	if opts.Changed == nil {
		opts.Changed = func() {}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Relay.Dir == "" {
		opts.Relay = opts.Bus
	}
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = DefaultMaxFileBytes
	}
	if opts.Deaf == nil {
		opts.Deaf = func(string) {}
	}
	in := &Inbound{
		opts: opts, authorized: map[string]bool{},
		seen: map[string]seenMsg{}, young: map[string]time.Time{}, heard: map[string]time.Time{}, cursors: map[string]bus.InboundRecord{}, unreacted: map[string]bus.InboundRecord{},
		health: Health{Ignored: map[Reason]int64{}},
		ready:  make(chan struct{}), reacts: make(chan struct{}, 1), history: make(chan struct{}, 1),
		retry: make(chan struct{}, 1), expiry: make(chan struct{}, 1), asks: map[string]*askState{},
		fetching: map[string]chan struct{}{},
		done:     make(chan struct{}),
	}
	for _, u := range opts.Authorized {
		if u != "" {
			in.authorized[u] = true
		}
	}
	return in
}

func (in *Inbound) Name() string { return "inbound" }

// Start replays the journal in the background (finishing any landing a
// crash cut short), then reads every open thread's history and adds the
// reactions still owed.
func (in *Inbound) Start(context.Context) error {
	ctx, cancel := context.WithCancel(context.Background())
	in.cancel = cancel
	in.wg.Add(1)
	go func() {
		defer in.wg.Done()
		if !in.open(ctx) {
			return
		}
		close(in.ready)
		in.wg.Add(4)
		go func() { defer in.wg.Done(); in.expiryLoop(ctx) }()
		go func() { defer in.wg.Done(); in.reactLoop(ctx) }()
		go func() { defer in.wg.Done(); in.historyLoop(ctx) }()
		go func() { defer in.wg.Done(); in.retryLoop(ctx) }()
	}()
	go func() {
		in.wg.Wait()
		in.mu.Lock()
		if in.j != nil {
			_ = in.j.Close()
			in.j = nil
		}
		in.closed = true
		in.mu.Unlock()
		close(in.done)
	}()
	return nil
}

func (in *Inbound) Done() <-chan struct{} { return in.done }

// Err is always nil: the inbound side never ends the daemon on its own (a
// lost name is the daemon's to notice).
func (in *Inbound) Err() error { return nil }

// Stop cancels what is in flight and waits for the workers to return.
func (in *Inbound) Stop(ctx context.Context) error {
	if in.cancel == nil {
		return nil
	}
	in.cancel()
	select {
	case <-in.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("inbound still stopping: %w", ctx.Err())
	}
}

// Connected says the transport (re)connected: messages may have been
// missed meanwhile, so every open thread's history is read again.
func (in *Inbound) Connected() { poke(in.history) }

// Receive handles one live event and returns once it is landed durably,
// found a duplicate, or ignored. An error means it is not landed (and
// not seen): it is tried again on its own (owed.go) if it got as far as
// being decided, and the service may deliver it again, or the next
// history read find it.
func (in *Inbound) Receive(ctx context.Context, ev Event) (Outcome, error) {
	select {
	case <-in.ready:
	case <-ctx.Done():
		return 0, fmt.Errorf("inbound not ready: %w", ctx.Err())
	case <-in.done:
		return 0, errStopped
	}
	select {
	case <-in.opts.Sessions.Loaded():
	case <-ctx.Done():
		return 0, fmt.Errorf("the relay's sessions not loaded yet: %w", ctx.Err())
	case <-in.done:
		return 0, errStopped
	}
	o, err := in.land(ctx, ev)
	if err == nil {
		in.heardLive(ev.ID)
	}
	return o, err
}

var errStopped = errors.New("inbound stopped")

func poke(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
