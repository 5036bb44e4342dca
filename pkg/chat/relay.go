package chat

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"time"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/inbound"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/relay"
	"gjc.dev/reconciler/pkg/spec"
)

// RelayOptions tune a daemon's relay; zero values take defaults.
type RelayOptions struct {
	// Step, when set, is called at each labelled step of every request
	// (relay.Options.Step): crash tests stop the process there.
	Step func(step, key string)
	// MinBackoff and MaxBackoff bound the relay's waits after a failure.
	MinBackoff, MaxBackoff time.Duration
	// Settle is how long a request may still land after its attempt
	// (relay.Options.Settle); it must exceed the posters' timeouts.
	Settle time.Duration
	// Inbound, when set, is the port the transport hands its inbound
	// messages to: the relay's inbound side is attached to it.
	Inbound *InboundPort
	// InboundStep, when set, is called at each step of a landing
	// (inbound.Options.Step).
	InboundStep func(step, id string)
	// InboundSweep, when set, overrides the spec's inboundSweep (tests:
	// under the spec's least).
	InboundSweep time.Duration
}

// NewRelay returns DaemonOptions.NewRelay for cfg: the relay of its
// provider p over the bus of its name under agentDir, with the spec's
// content rules (redact, verbosity). Every request it makes is fenced by
// the claim, so it posts only while the name is the daemon's. With a
// shared bus (a fleet's, Owners) the relay posts from it and keeps its
// journal there; without, it uses the name's bus on this machine.
func NewRelay(p Provider, cfg *spec.Config, agentDir string, log logr.Logger, o RelayOptions) func(claim ownership.Claim, shared SharedBus) (RelayComponent, error) {
	return func(claim ownership.Claim, shared SharedBus) (RelayComponent, error) {
		poster, err := p.Poster(cfg, log.WithName("relay"), o.Inbound.StateDir())
		if err != nil {
			return nil, err
		}
		dirs, err := bus.Paths(agentDir, cfg.Name)
		if err != nil {
			return nil, err
		}
		home, _ := os.UserHomeDir()
		rc := &relayComponent{changed: make(chan struct{}, 1), port: o.Inbound}
		relayDirs, journal, finished := dirs, relay.JournalStore(nil), func(string) {}
		if shared != nil {
			relayDirs, journal, rc.shared = shared.Dirs(), shared.Journal(), shared
			// The relay's worker calls finished inline, and the
			// transport closes only once the relay has stopped: a
			// finish waiting on an unreachable cluster must end with
			// the stop, or a cut-off owner would still be connected
			// when its lease expires. One not done is the next pass's.
			var finishing context.Context
			finishing, rc.stopFinishing = context.WithCancel(context.Background())
			finished = func(id string) {
				ctx, cancel := context.WithTimeout(finishing, fleetTimeout)
				defer cancel()
				shared.Finish(ctx, id)
			}
		}
		rc.Relay = relay.New(relay.Options{
			Bus: relayDirs, Poster: poster, Fence: claim.Fence, Log: log.WithName("relay"),
			Journal: journal, Finished: finished,
			Render: relay.RenderOptions{
				Redact: cfg.Redact, Home: home, Verbose: cfg.Verbosity == spec.VerbosityVerbose,
				Limit: poster.PartLimit(), Markup: p.Markup(), Ping: pingOnAsk(cfg),
				LongTextAsFile: cfg.LongTextAsFile,
			},
			// The inbound side is made after the relay, which it asks
			// which thread is whose; an ask is handed to it once it runs
			// (none is posted before: the relay waits for its start).
			AskPosted: func(ctx context.Context, m bus.Message, place, remote string) error {
				if rc.in == nil {
					return nil // nothing comes back: no click can decide it
				}
				return rc.in.AskPosted(ctx, m, place, remote)
			},
			MinBackoff: o.MinBackoff, MaxBackoff: o.MaxBackoff, Settle: o.Settle,
			Step:    o.Step,
			Changed: rc.poke,
			NewThread: func() {
				if rc.in != nil {
					rc.in.Connected()
				}
			},
		})
		if o.Inbound != nil {
			var keep func(session, file string) (bool, error)
			if shared != nil {
				keep = shared.KeepInbox
			}
			rc.in = inbound.New(inbound.Options{
				Bus: dirs, Service: poster, Sessions: rc.Relay, Authorized: cfg.AuthorizedUsers(),
				Fence: claim.Fence, Keep: keep, Log: log.WithName("inbound"),
				MinBackoff: o.MinBackoff, MaxBackoff: o.MaxBackoff,
				Step: o.InboundStep, Changed: rc.poke,
				Sweep: cmp.Or(o.InboundSweep, cfg.InboundSweep), Deaf: o.Inbound.reportDeaf,
				Relay: relayDirs, MaxFileBytes: cfg.MaxInboundFileBytes,
			})
		}
		return rc, nil
	}
}

// relayComponent is a relay as a daemon runs it, both ways: a Component,
// and the source of its heartbeats' relay health. The inbound side starts
// after the outbound one (it asks it which thread is whose) and stops
// before it.
type relayComponent struct {
	*relay.Relay
	// shared, in a fleet, gives the relay the fleet's outbox.
	shared        SharedBus
	stopPuller    context.CancelFunc
	stopFinishing context.CancelFunc
	pulled        chan struct{}
	in            *inbound.Inbound // nil: nothing comes back
	port          *InboundPort
	changed       chan struct{}
}

// fleetTimeout bounds each request to the shared bus.
const fleetTimeout = 10 * time.Second

func (c *relayComponent) Start(ctx context.Context) error {
	if c.shared != nil {
		// Before the relay looks at its outbox: what a predecessor
		// finished is no longer there.
		sctx, cancel := context.WithTimeout(ctx, fleetTimeout)
		rev, err := c.shared.Sync(sctx)
		cancel()
		if err != nil {
			return fmt.Errorf("taking the fleet's outbox: %w", err)
		}
		pctx, stop := context.WithCancel(context.Background())
		c.stopPuller, c.pulled = stop, make(chan struct{})
		go func() {
			defer close(c.pulled)
			c.shared.Run(pctx, rev)
		}()
	}
	if err := c.Relay.Start(ctx); err != nil {
		return err
	}
	if c.in == nil {
		return nil
	}
	if err := c.in.Start(ctx); err != nil {
		return err
	}
	c.port.attach(c.in)
	return nil
}

func (c *relayComponent) Stop(ctx context.Context) error {
	if c.stopFinishing != nil {
		c.stopFinishing()
	}
	if c.in != nil {
		if err := c.in.Stop(ctx); err != nil {
			return err
		}
	}
	if c.stopPuller != nil {
		c.stopPuller()
		select {
		case <-c.pulled:
		case <-ctx.Done():
			return fmt.Errorf("fleet outbox still stopping: %w", ctx.Err())
		}
	}
	return c.Relay.Stop(ctx)
}

func (c *relayComponent) poke() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

func (c *relayComponent) RelayChanged() <-chan struct{} { return c.changed }

func (c *relayComponent) RelayState() *ownership.RelayState {
	s := relayState(c.Health())
	if c.in != nil {
		h := c.in.Health()
		s.InboxLanded, s.InboxDuplicates, s.InboxIgnored = h.Landed, h.Duplicates, h.IgnoredTotal()
		s.InboxWaiting = int64(h.Owed)
		for r, n := range h.Ignored {
			if n > 0 {
				if s.InboxIgnoredBy == nil {
					s.InboxIgnoredBy = map[string]int64{}
				}
				s.InboxIgnoredBy[string(r)] = n
			}
		}
		if !h.LastLandedAt.IsZero() {
			s.LastInboxAt = h.LastLandedAt.UnixMilli()
		}
		s.InboxMissed, s.InboxLagMs = h.Missed, h.LastLag.Milliseconds()
		s.AsksOpen, s.AsksDecided, s.AsksExpired, s.AsksRefused = h.Asks.Open, h.Asks.Decided, h.Asks.Expired, h.Asks.Refused
	}
	return s
}

// Settled reports whether the relay's channel check has answered.
func (c *relayComponent) Settled() bool { return c.Health().Settled }

// relayState is h as state.json carries it.
func relayState(h relay.Health) *ownership.RelayState {
	ms := func(t time.Time) int64 {
		if t.IsZero() {
			return 0
		}
		return t.UnixMilli()
	}
	s := &ownership.RelayState{
		Pending: int64(h.Pending), OldestPendingAt: ms(h.OldestPendingAt), Failed: int64(h.Failed),
		RateLimitedUntil: ms(h.RateLimitedUntil), LastPostAt: ms(h.LastPostAt),
		Posted: h.Posted, PostSeconds: h.PostSeconds, RateLimitWaits: h.RateLimitWaits, Filtered: h.Filtered,
	}
	if h.Blocked != nil {
		s.Blocked = &ownership.RelayBlock{Reason: h.Blocked.Reason, Message: h.Blocked.Message}
	}
	return s
}

// pingOnAsk are the users an ask mentions: the authorized ones when the
// spec says pingOnAsk, else none.
func pingOnAsk(cfg *spec.Config) []string {
	if !cfg.PingOnAsk {
		return nil
	}
	return cfg.AuthorizedUsers()
}
