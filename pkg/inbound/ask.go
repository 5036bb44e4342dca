package inbound

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"gjc.dev/reconciler/pkg/bus"
)

// askState is what the journal says of one ask.
type askState struct {
	rec     bus.InboundRecord  // OpAsk
	decided *bus.InboundRecord // OpDecided, nil while undecided
	// tried is a decision whose record's append failed: it may be
	// durable all the same, so it is the only decision the ask can still
	// get, appended again before anything else is decided.
	tried *bus.InboundRecord
	// published: the decision's file is in the inbox (or known to be).
	published bool
	// outcome: the message that shows the outcome is in the outbox.
	outcome bool
}

// AskPosted is the relay's Options.AskPosted: the ask m was posted in
// place, its buttons on message remote. It is recorded durably before
// the relay lets its file go, so that a click on it can be checked, and
// its expiry kept, across restarts. The same ask again is nothing new.
func (in *Inbound) AskPosted(ctx context.Context, m bus.Message, place, remote string) error {
	if err := in.waitReady(ctx); err != nil {
		return err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if _, ok := in.asks[m.ID]; ok {
		return nil
	}
	rec := bus.InboundRecord{Op: bus.OpAsk, ID: m.ID, Place: place, Session: m.Session, Remote: remote,
		Choices: m.Choices, At: m.ExpiresAtTime().UnixMilli()}
	if err := in.appendLocked(ctx, rec); err != nil {
		return fmt.Errorf("recording ask %s: %w", m.ID, err)
	}
	in.asks[m.ID] = &askState{rec: rec}
	in.health.Asks.Open++
	in.changed()
	poke(in.expiry)
	return nil
}

// Decide handles one click and returns once it is decided durably, or
// known to decide nothing. The first click of an authorized user on a
// live ask decides it: the decision lands in the inbox before Decide
// returns. An error means nothing is known to have landed: the
// transport does not answer, and the same click again decides as this
// one would have.
func (in *Inbound) Decide(ctx context.Context, c Click) (Verdict, error) {
	if err := in.waitReady(ctx); err != nil {
		return Verdict{}, err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	askID, i, ok := bus.ParseChoiceData(c.Data)
	a := in.asks[askID]
	if ok && a == nil && in.askQueued(askID) {
		// Its buttons are up, but it is not recorded yet: not answered,
		// so the service delivers the click again, or the clicker tries.
		return Verdict{}, fmt.Errorf("ask %s is posted but not recorded yet", askID)
	}
	switch {
	case !ok || a == nil || i >= len(a.rec.Choices) || c.Message != a.rec.Remote || (c.Place != "" && c.Place != a.rec.Place):
		in.health.Asks.Unknown++
		in.changed()
		in.opts.Log.Info("click on no ask of ours ignored", "click", c.ID, "data", c.Data, "user", c.User)
		return Verdict{Kind: Unknown}, nil
	case !in.authorized[c.User]:
		// Checked before the decided state: a stranger is told they may
		// not decide, whatever became of the question.
		in.health.Asks.Refused++
		in.changed()
		in.opts.Log.Info("click by a user who may not decide refused", "ask", askID, "user", c.User)
		return Verdict{Kind: Refused}, nil
	}
	now := in.opts.Now()
	if c.Time.After(now) {
		now = c.Time // the service's word that the click came later
	}
	if a.decided == nil && !now.Before(time.UnixMilli(a.rec.At)) {
		// Past its expiresAt, however late the expiry loop is: an agent
		// that waited until then was told nobody decided.
		if err := in.decideLocked(ctx, a, bus.ChoiceExpired, "", "", now); err != nil {
			return Verdict{}, err
		}
	}
	if a.decided == nil {
		at := c.Time
		if at.IsZero() {
			at = now
		}
		if err := in.decideLocked(ctx, a, a.rec.Choices[i], c.User, displayName(c), at); err != nil {
			return Verdict{}, err
		}
		if d := a.decided; d.User == c.User && d.Choice == a.rec.Choices[i] && d.At == at.UnixMilli() {
			return Verdict{Kind: Decided, Choice: d.Choice, By: d.Name}, nil
		}
	}
	// Decided for good, whatever its file's fate: the expiry loop
	// completes what is left.
	if err := in.publishDecision(a); err != nil {
		poke(in.expiry)
	}
	return Verdict{Kind: AlreadyDecided, Choice: a.decided.Choice, By: a.decided.Name}, nil
}

// askQueued reports whether ask id is still in the relay's outbox: posted
// maybe, but not handed to AskPosted yet.
func (in *Inbound) askQueued(id string) bool {
	_, err := os.Lstat(filepath.Join(in.opts.Relay.Outbox, id+".json"))
	return err == nil
}

// displayName is how the outcome names the clicker: the service's name
// without control characters, cut to what the journal keeps, else the id.
func displayName(c Click) string {
	name := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(c.Name, ""))
	if len(name) > bus.MaxNameLen {
		cut := bus.MaxNameLen
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = name[:cut]
	}
	if strings.TrimSpace(name) == "" {
		return c.User
	}
	return name
}

// decideLocked lands the decision of a (choice by user, or expired). The
// OpDecided record is the commit point, as OpLanded is a reply's: before
// it is durable nothing was decided (a crash leaves a stage the next
// start removes); once it is, the ask is decided for good and a crash
// leaves a stage the next start publishes. A record whose append failed
// may be durable all the same: it is kept (tried), and the next attempt
// to decide appends that one again, whoever clicked, so the journal
// never holds two decisions of one ask. The outcome message follows on
// the expiry loop, not holding up the click's answer. in.mu is held.
func (in *Inbound) decideLocked(ctx context.Context, a *askState, choice, user, name string, at time.Time) error {
	if err := in.opts.Fence(); err != nil {
		return in.failed(fmt.Errorf("deciding ask %s: %w", a.rec.ID, err))
	}
	rec := a.tried
	if rec == nil {
		d := bus.Decision(a.rec.Session, a.rec.ID, choice, user, at)
		file, err := bus.StageInbox(in.opts.Bus, d)
		if err != nil {
			return in.failed(fmt.Errorf("deciding ask %s: %w", a.rec.ID, err))
		}
		in.opts.Step(StepStaged, a.rec.ID)
		rec = &bus.InboundRecord{Op: bus.OpDecided, ID: a.rec.ID, Place: a.rec.Place, Session: a.rec.Session, File: file,
			Choice: choice, User: user, Name: name, At: at.UnixMilli()}
	}
	// Not cut short by the click's deadline: a cancelled append may still
	// become durable, and must be known to have.
	if err := in.appendLocked(context.WithoutCancel(ctx), *rec); err != nil {
		a.tried = rec
		return in.failed(fmt.Errorf("deciding ask %s: %w", a.rec.ID, err))
	}
	in.opts.Step(StepRecorded, a.rec.ID)
	a.decided, a.tried = rec, nil
	in.health.Asks.Open--
	if rec.Choice == bus.ChoiceExpired {
		in.health.Asks.Expired++
	} else {
		in.health.Asks.Decided++
	}
	in.changed()
	// Decided for good: a file that could not be published follows on
	// the expiry loop's retry (or the next start), with the outcome.
	_ = in.publishDecision(a)
	poke(in.expiry)
	return nil
}

// publishDecision publishes a's decision file, once. in.mu is held.
func (in *Inbound) publishDecision(a *askState) error {
	if a.published {
		return nil
	}
	if err := in.publish(a.rec.Session, a.decided.File); err != nil {
		return in.failed(fmt.Errorf("publishing the decision of ask %s: %w", a.rec.ID, err))
	}
	a.published = true
	in.opts.Step(StepPublished, a.rec.ID)
	return nil
}

// completeDecision publishes a's decision file and puts its outcome in
// the outbox, each once. in.mu is held.
func (in *Inbound) completeDecision(a *askState) error {
	if err := in.publishDecision(a); err != nil {
		return err
	}
	if !a.outcome && !in.placeOpen(a.rec.Place) {
		// Its session closed meanwhile: no message goes to a closed
		// session, and the decision is in the inbox; the buttons stay,
		// and a click on them is answered that it was decided.
		in.opts.Log.Info("ask decided after its session closed; its question is left as it is", "ask", a.rec.ID, "choice", a.decided.Choice)
	} else if !a.outcome {
		if err := in.writeOutcome(a); err != nil {
			return in.failed(fmt.Errorf("showing the outcome of ask %s: %w", a.rec.ID, err))
		}
	}
	if !a.outcome {
		if err := in.appendLocked(context.Background(), bus.InboundRecord{Op: bus.OpOutcome, ID: a.rec.ID, Place: a.rec.Place, At: a.decided.At}); err != nil {
			return in.failed(fmt.Errorf("showing the outcome of ask %s: %w", a.rec.ID, err))
		}
		a.outcome = true
	}
	return nil
}

// placeOpen reports whether place is the thread of a session not closed.
func (in *Inbound) placeOpen(place string) bool {
	for _, p := range in.opts.Sessions.OpenPlaces() {
		if p.ID == place {
			return true
		}
	}
	return false
}

// waitReady waits for the journal's replay and the relay's sessions.
func (in *Inbound) waitReady(ctx context.Context) error {
	for _, c := range []<-chan struct{}{in.ready, in.opts.Sessions.Loaded()} {
		select {
		case <-c:
		case <-ctx.Done():
			return fmt.Errorf("inbound not ready: %w", ctx.Err())
		case <-in.done:
			return errStopped
		}
	}
	return nil
}
