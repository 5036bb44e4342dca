package inbound

import (
	"errors"
	"os"
	"path/filepath"

	"gjc.dev/reconciler/pkg/bus"
)

// writeOutcome puts in the outbox the message that edits a's question in
// place to show its outcome (its buttons go with the edit). Its id is
// the ask's outcome id and its content a pure function of the question
// and the journal's decision, so writing it again after a crash is the
// same message, posted once.
func (in *Inbound) writeOutcome(a *askState) error {
	id := bus.OutcomeID(a.rec.ID)
	if in.outcomeWritten(id) {
		// Written before a crash cut its record short: its text was made
		// from the question as it was then, which may be gone now.
		return nil
	}
	m := outcomeMessage(a, in.question(a.rec.ID))
	if _, err := bus.Write(in.opts.Bus.Outbox, m); err != nil {
		return err
	}
	return nil
}

// outcomeWritten reports whether a message of id is in the outbox or has
// left it (sent/, failed/): whatever it says, it is the outcome.
func (in *Inbound) outcomeWritten(id string) bool {
	for _, dir := range []string{in.opts.Bus.Outbox, in.opts.Bus.Sent, in.opts.Bus.Failed} {
		if _, err := os.Lstat(filepath.Join(dir, id+".json")); err == nil {
			return true
		}
	}
	return false
}

// outcomeMessage is the edit that shows a's outcome under q, the
// question as the relay posted it (zero when it could not be read: the
// outcome alone then replaces it).
func outcomeMessage(a *askState, q bus.Message) bus.Message {
	line := outcomeLine(a.decided)
	m := bus.Message{ID: bus.OutcomeID(a.rec.ID), Session: a.rec.Session, Event: bus.EventMessage,
		Replaces: a.rec.ID, Title: q.Title, Level: q.Level, Text: line}
	if m.Level == "" || m.Level == bus.LevelInfo {
		m.Level = bus.LevelAction // a lean daemon never leaves the outcome out
	}
	if q.Text != "" && len(q.Text)+len(line)+2 <= bus.MaxTextSize {
		m.Text = q.Text + "\n\n" + line
	}
	return m
}

// outcomeLine says how d decided its ask.
func outcomeLine(d *bus.InboundRecord) string {
	if d.Choice == bus.ChoiceExpired {
		return "Expired: no decision was made in time."
	}
	return "Decided: " + d.Choice + ", by " + d.Name
}

// question reads ask id as the relay has it: in its outbox still, or in
// sent/ (the outbox first: the relay moves it from there to sent/, never
// back). Zero when it is in neither (pruned from sent/) or cannot be read
// (the file is untrusted): the outcome is then shown without it.
func (in *Inbound) question(id string) bus.Message {
	box, err := bus.OpenBox(in.opts.Relay)
	if err != nil {
		in.opts.Log.Info("the relay's bus cannot be read; the outcome of an ask replaces its question", "ask", id, "error", err.Error())
		return bus.Message{}
	}
	defer box.Close()
	name := id + ".json"
	m, _, err := box.Take(name)
	if err == nil {
		return m
	}
	if m, err = box.Sent(name); err == nil {
		return m
	}
	if !errors.Is(err, os.ErrNotExist) {
		in.opts.Log.Info("the question of an ask cannot be read; its outcome replaces it", "ask", id, "error", err.Error())
	}
	return bus.Message{}
}
