package bus

import "testing"

func TestAskThatItsRecordWouldRefuseIsRefused(t *testing.T) {
	for _, m := range []Message{
		{ID: "01JA", Session: "s", Event: EventAsk, Level: "action", Text: "q?", Choices: []string{"Yes"}, ExpiresAt: "1969-12-31T23:59:59.000Z"},
		{ID: "01JB", Session: ".s", Event: EventAsk, Level: "action", Text: "q?", Choices: []string{"Yes"}, ExpiresAt: "2026-12-31T23:59:59.000Z"},
		{ID: "01JC", Session: "s", Event: EventAsk, Level: "action", Text: "q?", Choices: []string{"Yes"}, ExpiresAt: "1970-01-01T00:00:00.000Z"},
	} {
		if errs := m.Validate(); len(errs) > 0 {
			t.Logf("%s refused by Validate: %v", m.ID, errs)
			continue
		}
		rec := InboundRecord{Op: OpAsk, ID: m.ID, Place: "T1", Session: m.Session, Remote: "R1", Choices: m.Choices, At: m.ExpiresAtTime().UnixMilli()}
		if err := ValidateInboundRecord(rec); err != nil {
			t.Errorf("%s: a valid outbox ask whose OpAsk record is invalid (AskPosted fails forever): %v", m.ID, err)
		}
	}
}
