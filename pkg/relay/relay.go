package relay

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/dirwatch"
	"gjc.dev/reconciler/pkg/platform"
)

// Options are what a Relay needs.
type Options struct {
	Bus    bus.Dirs
	Poster Poster
	// Fence proves, before every request, that this daemon still owns its
	// name (ownership.Claim.Fence); an error ends the relay, and nothing
	// is sent.
	Fence  func() error
	Render RenderOptions
	Log    logr.Logger
	// SentKeep is how long sent/ files are kept (DESIGN 5: 24 h).
	SentKeep time.Duration
	// Backoff bounds the waits after a blocked or uncertain request.
	MinBackoff, MaxBackoff time.Duration
	// Settle is how long after an attempt its request may still land at
	// the service (longer than the Poster's request timeout): a lookup
	// that does not find the part sooner is not believed (default 30 s).
	Settle time.Duration
	// Step, when set, is called at each labelled step of a request (see
	// steps.go): crash tests stop the process there.
	Step func(step, key string)
	// Changed, when set, is poked whenever Health changed.
	Changed func()
	// NewThread, when set, is called once a session's thread is
	// recorded: the inbound side reads its history then.
	NewThread func()
	// Journal, when set, is where the journal lives (default: the file
	// in the bus, FileJournal).
	Journal JournalStore
	// Finished, when set, is called with each message's id once its file
	// left the outbox for good (to sent/ or failed/): a fleet's outbox
	// entry is removed then.
	Finished func(id string)
	// AskPosted, when set, takes an ask once every part of it is posted,
	// before its file leaves the outbox: m the ask, place its session's
	// thread (as an inbound event's Place there), remote the service id
	// of the part its buttons are on. It may be handed the same ask again
	// (after a restart) and must make that no different from once.
	AskPosted func(ctx context.Context, m bus.Message, place, remote string) error
}

// Relay posts a daemon's outbox. It is a daemon Component: Start, then
// Stop; Done and Err say when and why it ended on its own.
type Relay struct {
	opts Options
	st   *state

	jmu sync.Mutex
	j   Journal // replaced when a write failed (reopenJournal)

	mu       sync.Mutex
	queues   map[string]*queue         // by session; only sessions with work
	known    map[string]time.Time      // outbox names queued, and when first seen
	ignored  map[string]platform.Entry // outbox entries left in place, as they were then
	later    map[string]time.Time      // young outbox files not messages yet: when to look again
	health   Health
	blocks   map[string]*Block // by session, and "" for the channel check
	globalRL time.Time         // a global rate limit: no request before it
	failed   int
	settled  bool      // see Health.Settled
	edits    edits     // coalescing (coalesce.go)
	turn     placeTurn // places are made one at a time (placeturn.go)
	// unwritten are done records folded into st but not yet written:
	// the next write takes them first (request.go, record).
	unwritten []bus.Record
	writing   []chan struct{} // closed as each write carrying done records ends

	wake     chan struct{}
	touched  touched       // outbox names changed since the dispatcher last looked
	fin      finishing     // delivered messages on their way out of the outbox
	checked  chan struct{} // closed once the channel check passed
	loaded   chan struct{} // closed once st was rebuilt from the journal
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	done     chan struct{}
	err      error
	once     sync.Once
	loadOnce sync.Once
}

// New returns a relay for opts; Start begins its work.
func New(opts Options) *Relay {
	if opts.SentKeep == 0 {
		opts.SentKeep = 24 * time.Hour
	}
	if opts.MinBackoff == 0 {
		opts.MinBackoff = 500 * time.Millisecond
	}
	if opts.MaxBackoff == 0 {
		opts.MaxBackoff = time.Minute
	}
	if opts.Settle == 0 {
		opts.Settle = 30 * time.Second
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
	if opts.NewThread == nil {
		opts.NewThread = func() {}
	}
	if opts.Journal == nil {
		opts.Journal = FileJournal(opts.Bus)
	}
	if opts.Finished == nil {
		opts.Finished = func(string) {}
	}
	if opts.Poster != nil && opts.Poster.Files().MaxFiles == 0 {
		// A service that takes no files gets a long text as its parts.
		opts.Render.LongTextAsFile = 0
	}
	return &Relay{
		opts: opts, queues: map[string]*queue{}, known: map[string]time.Time{}, ignored: map[string]platform.Entry{}, later: map[string]time.Time{},
		blocks: map[string]*Block{}, edits: newEdits(), wake: make(chan struct{}, 1), fin: finishing{wake: make(chan struct{}, 1)}, checked: make(chan struct{}), loaded: make(chan struct{}), done: make(chan struct{}),
	}
}

func (r *Relay) Name() string { return "relay" }

// Start begins the relay's work in the background and returns: the bus
// dirs made, the state rebuilt from the journal, the channel checked, the
// outbox watched. A bus it cannot use (a dir refused, a journal that
// cannot be read whole, so it cannot prove what was posted) posts nothing
// and says so (RelayBlocked) until it is repaired; the daemon runs on.
func (r *Relay) Start(context.Context) error {
	w, err := dirwatch.New()
	if err != nil {
		return fmt.Errorf("relay: watching the outbox: %w", err)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer func() { _ = w.Close() }()
		if !r.open(runCtx) {
			return
		}
		// The filter runs once per event, before the wake: it records the
		// name for the dispatcher (see touched).
		changes, unsubscribe, err := w.Subscribe(r.opts.Bus.Outbox, func(base string) bool {
			switch {
			case base == "":
				r.touched.everything() // a poke that names no file
			case bus.IsTempName(base):
				return false
			default:
				r.touched.add(base)
			}
			return true
		})
		if err != nil {
			r.fail(fmt.Errorf("relay: watching the outbox: %w", err))
			return
		}
		defer unsubscribe()
		r.run(runCtx, changes)
	}()
	go func() {
		// What the finisher had not finished when the relay stopped stays
		// in the outbox, its done records written or not: the next start
		// looks it up and moves it. A stop never waits on the journal
		// (a fleet's is in etcd, which a lost owner may not reach): the
		// daemon closes its transport only once the relay stopped.
		r.wg.Wait()
		if j := r.journal(); j != nil {
			_ = j.Close()
		}
		close(r.done)
	}()
	return nil
}

// open prepares the bus, retrying with back-off while it cannot be used;
// false when the relay stopped first.
func (r *Relay) open(ctx context.Context) bool {
	b := r.newBackoff()
	for {
		err := r.prepare(ctx)
		if err == nil {
			r.setBlock("", nil)
			return true
		}
		r.opts.Log.Error(err, "the relay's bus cannot be used; nothing is posted until it is repaired")
		r.settle()
		r.setBlock("", &Block{Reason: ReasonRelayBlocked, Message: err.Error()})
		if !b.wait(ctx) {
			return false
		}
	}
}

// prepare makes the bus dirs, rebuilds the state from the journal and
// opens it for appending.
func (r *Relay) prepare(ctx context.Context) error {
	if err := bus.EnsureDirs(r.opts.Bus); err != nil {
		return err
	}
	st, err := r.recover(ctx)
	if err != nil {
		return err
	}
	if f := r.opts.Poster.Floors(); f != nil {
		for _, remote := range st.done {
			f.Saw(remote)
		}
	}
	j, err := r.opts.Journal.Open(ctx)
	if err != nil {
		return err
	}
	n, err := bus.CountFailed(r.opts.Bus)
	if err != nil {
		_ = j.Close()
		return err
	}
	r.mu.Lock()
	r.st, r.failed = st, n
	r.mu.Unlock()
	r.jmu.Lock()
	r.j = j
	r.jmu.Unlock()
	r.loadOnce.Do(func() { close(r.loaded) })
	return nil
}

func (r *Relay) Done() <-chan struct{} { return r.done }

func (r *Relay) Err() error {
	select {
	case <-r.done:
		return r.err
	default:
		return nil
	}
}

// Stop cancels every request in flight (each is then uncertain, and
// looked up at the next start) and waits for the workers to return.
func (r *Relay) Stop(ctx context.Context) error {
	if r.cancel == nil {
		return nil
	}
	r.cancel()
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		return fmt.Errorf("relay still stopping: %w", ctx.Err())
	}
}

// fail ends the relay on its own with err (ownership lost, a journal that
// cannot be written).
func (r *Relay) fail(err error) {
	r.once.Do(func() {
		r.err = err
		r.cancel()
	})
}

// errStopped is returned by waits when the relay is stopping.
var errStopped = errors.New("relay stopping")
