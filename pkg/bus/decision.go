package bus

import "time"

// Decision is the inbox message that decides ask askID of session: the
// choice of user (a label of the ask), or ChoiceExpired with no user.
func Decision(session, askID, choice, user string, at time.Time) InboxMessage {
	return InboxMessage{ID: askID, Session: session, Ask: askID, Choice: choice, User: user, TS: InboxTime(at)}
}

// IsDecision reports whether m decides an ask rather than replying.
func (m InboxMessage) IsDecision() bool { return m.Ask != "" }

// validateDecision checks the fields of a decision: its id is its ask's,
// it has a choice and no text, and a user unless it expired.
func (m InboxMessage) validateDecision() []error {
	var errs []error
	bad := func(field, rule string) { errs = append(errs, &FieldError{Field: field, Rule: rule}) }
	if m.ID != m.Ask {
		bad("ask", "a decision's id is the id of the ask it decides")
	}
	if m.Text != "" {
		bad("text", "a decision has no text")
	}
	if m.Choice != ChoiceExpired {
		if rule := choiceRule(m.Choice); rule != "" {
			bad("choice", rule)
		}
	}
	switch {
	case m.Choice == ChoiceExpired && m.User != "":
		bad("user", "an expired ask was decided by no one")
	case m.Choice != ChoiceExpired && !validToken(m.User, MaxRemoteLen, true):
		bad("user", "must match [A-Za-z0-9._:-]{1,128}")
	}
	return errs
}
