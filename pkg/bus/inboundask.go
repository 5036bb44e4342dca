package bus

import (
	"unicode/utf8"
)

// validateAsk checks the fields an ask's records carry: each on its op
// only, and each as the ask's rules say.
func (r InboundRecord) validateAsk() []error {
	var errs []error
	bad := func(field, rule string) { errs = append(errs, &FieldError{Field: field, Rule: rule}) }
	if r.Op != OpAsk && (r.Remote != "" || len(r.Choices) > 0) {
		bad("remote", "only an "+OpAsk+" record names a message and choices")
	}
	if r.Op != OpDecided && (r.Choice != "" || r.User != "" || r.Name != "") {
		bad("choice", "only a "+OpDecided+" record names a choice and who made it")
	}
	switch r.Op {
	case OpAsk:
		if !validToken(r.Remote, MaxRemoteLen, true) {
			bad("remote", "must match [A-Za-z0-9._:-]{1,128}")
		}
		if len(r.Choices) == 0 || len(r.Choices) > MaxChoices {
			bad("choices", "an ask has 1 to 5 choices")
		}
		for _, c := range r.Choices {
			if rule := choiceRule(c); rule != "" {
				bad("choices", rule)
			}
		}
	case OpDecided:
		if r.Choice == ChoiceExpired {
			if r.User != "" || r.Name != "" {
				bad("user", "an expired ask was decided by no one")
			}
			break
		}
		if rule := choiceRule(r.Choice); rule != "" {
			bad("choice", rule)
		}
		if !validToken(r.User, MaxRemoteLen, true) {
			bad("user", "must match [A-Za-z0-9._:-]{1,128}")
		}
		if !utf8.ValidString(r.Name) || len(r.Name) > MaxNameLen {
			bad("name", "must be valid UTF-8, at most 128 bytes")
		}
	}
	return errs
}
