package inbound

import (
	"context"
	"fmt"
	"time"

	"gjc.dev/reconciler/pkg/bus"
)

// askState is what the journal says of one ask.
type askState struct {
	rec     bus.InboundRecord  // OpAsk
	decided *bus.InboundRecord // OpDecided, nil while undecided
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
	case a.decided != nil:
		// Decided for good, whatever its file's fate: the expiry loop
		// completes what is left.
		if err := in.completeDecision(a); err != nil {
			poke(in.expiry)
		}
		return Verdict{Kind: AlreadyDecided, Choice: a.decided.Choice, By: a.decided.Name}, nil
	}
	at := c.Time
	if at.IsZero() {
		at = in.opts.Now()
	}
	name := displayName(c)
	if err := in.decideLocked(ctx, a, a.rec.Choices[i], c.User, name, at); err != nil {
		return Verdict{}, err
	}
	return Verdict{Kind: Decided, Choice: a.rec.Choices[i], By: name}, nil
}

// displayName is how the outcome names the clicker: the service's name,
// cut to what the journal keeps, else the id.
func displayName(c Click) string {
	name := c.Name
	if name == "" {
		return c.User
	}
	for len(name) > bus.MaxNameLen {
		r := []rune(name)
		name = string(r[:len(r)-1])
	}
	return name
}

// decideLocked lands the decision of a (choice by user, or expired),
// then puts the message that shows it in the outbox. The OpDecided record
// is the commit point, as OpLanded is a reply's: before it is durable
// nothing was decided (a crash leaves a stage the next start removes);
// once it is, the ask is decided for good and a crash leaves a stage the
// next start publishes. in.mu is held.
func (in *Inbound) decideLocked(ctx context.Context, a *askState, choice, user, name string, at time.Time) error {
	if err := in.opts.Fence(); err != nil {
		return in.failed(fmt.Errorf("deciding ask %s: %w", a.rec.ID, err))
	}
	d := bus.Decision(a.rec.Session, a.rec.ID, choice, user, at)
	file, err := bus.StageInbox(in.opts.Bus, d)
	if err != nil {
		return in.failed(fmt.Errorf("deciding ask %s: %w", a.rec.ID, err))
	}
	in.opts.Step(StepStaged, a.rec.ID)
	rec := bus.InboundRecord{Op: bus.OpDecided, ID: a.rec.ID, Place: a.rec.Place, Session: a.rec.Session, File: file,
		Choice: choice, User: user, Name: name, At: at.UnixMilli()}
	if err := in.appendLocked(ctx, rec); err != nil {
		return in.failed(fmt.Errorf("deciding ask %s: %w", a.rec.ID, err))
	}
	in.opts.Step(StepRecorded, a.rec.ID)
	a.decided = &rec
	in.health.Asks.Open--
	if choice == bus.ChoiceExpired {
		in.health.Asks.Expired++
	} else {
		in.health.Asks.Decided++
	}
	in.changed()
	if err := in.completeDecision(a); err != nil {
		// Decided for good: the file and the outcome follow on the
		// expiry loop's retry, or the next start.
		poke(in.expiry)
	}
	return nil
}

// completeDecision publishes a's decision file and puts its outcome in
// the outbox, each once. in.mu is held.
func (in *Inbound) completeDecision(a *askState) error {
	if !a.published {
		if err := in.publish(a.rec.Session, a.decided.File); err != nil {
			return in.failed(fmt.Errorf("publishing the decision of ask %s: %w", a.rec.ID, err))
		}
		a.published = true
		in.opts.Step(StepPublished, a.rec.ID)
	}
	if !a.outcome {
		if err := in.writeOutcome(a); err != nil {
			return in.failed(fmt.Errorf("showing the outcome of ask %s: %w", a.rec.ID, err))
		}
		if err := in.appendLocked(context.Background(), bus.InboundRecord{Op: bus.OpOutcome, ID: a.rec.ID, Place: a.rec.Place, At: a.decided.At}); err != nil {
			return in.failed(fmt.Errorf("showing the outcome of ask %s: %w", a.rec.ID, err))
		}
		a.outcome = true
	}
	return nil
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
