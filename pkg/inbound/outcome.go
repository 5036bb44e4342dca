package inbound

import (
	"errors"
	"fmt"
	"os"

	"gjc.dev/reconciler/pkg/bus"
)

// writeOutcome puts in the outbox the message that edits a's question in
// place to show its outcome (its buttons go with the edit). Its id is
// the ask's outcome id and its content a pure function of the question
// and the journal's decision, so writing it again after a crash is the
// same message, posted once.
func (in *Inbound) writeOutcome(a *askState) error {
	m := outcomeMessage(a, in.question(a.rec.ID))
	if _, err := bus.Write(in.opts.Bus.Outbox, m); err != nil {
		return err
	}
	return nil
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
// sent/. Zero when it is in neither (pruned from sent/, or unreadable:
// the file is untrusted, and the outcome is shown without it).
func (in *Inbound) question(id string) bus.Message {
	box, err := bus.OpenBox(in.opts.Relay)
	if err != nil {
		return bus.Message{}
	}
	defer box.Close()
	name := id + ".json"
	if m, err := box.Sent(name); err == nil {
		return m
	} else if !errors.Is(err, os.ErrNotExist) {
		in.opts.Log.Info("the question of an ask cannot be read; its outcome replaces it", "ask", id, "error", err.Error())
		return bus.Message{}
	}
	m, _, err := box.Take(name)
	if err != nil {
		in.opts.Log.Info("the question of an ask cannot be read; its outcome replaces it", "ask", id, "error", fmt.Sprint(err))
		return bus.Message{}
	}
	return m
}
