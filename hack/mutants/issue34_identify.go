package main

// The rules of issue 34's Discord logins: a daemon whose session starts are
// at the reserve does not identify; the record says why, so the name is
// Degraded with that reason; the fake resets a token past its budget.
func init() {
	mutants = append(mutants, []mutant{
		{"discord: no IDENTIFY at the reserve", "pkg/chat/discord/transport.go",
			"\tif v := judgeBudget(gb.SessionStartLimit, d.opts.IdentifyReserve, d.resume != nil, now); !v.ok {\n",
			"\tif v := judgeBudget(gb.SessionStartLimit, d.opts.IdentifyReserve, d.resume != nil, now); false {\n",
			"./pkg/chat/discord", "TestIdentifyBudgetAtTheReserve"},
		{"discord: the reserve is kept, not spent to the last start", "pkg/chat/discord/identifybudget.go",
			"\tif l.Total <= 0 || l.Remaining > reserve || resuming && l.Remaining > 0 {\n", "\tif l.Total <= 0 || l.Remaining > 0 || resuming && l.Remaining > 0 {\n",
			"./pkg/chat/discord", "TestJudgeBudget"},
		{"reconcile: a transport down for a named cause is Degraded with it", "pkg/reconcile/decidestart.go",
			"\t\tp.reason, p.degraded = s.TransportReason, true\n", "",
			"./pkg/reconcile", "TestDecide"},
		{"ownership: a transportReason that is not a CamelCase word makes the record malformed", "pkg/ownership/parse.go",
			"\tif s != \"\" && !ValidReason(s) {\n", "\tif false {\n",
			"./pkg/ownership", "TestParseStateMalformed"},
		{"fakediscord: a token past its session start budget is reset", "pkg/chat/fakediscord/sessionstarts.go",
			"\t\ts.faults.rejected[token] = true\n", "",
			"./pkg/chat/fakediscord", "TestSessionStartLimit"},
		{"discord: a spent window said to end now is asked about again after a wait, never in a loop", "pkg/chat/discord/identifybudget.go",
			"\t\tuntil: now.Add(min(max(after, budgetMinWait), budgetWait)),\n", "\t\tuntil: now.Add(min(after, budgetWait)),\n",
			"./pkg/chat/discord", "TestJudgeBudget"},
		{"fsstore: logins the record cannot hold are not written", "pkg/ownership/fsstore/renew.go",
			"\tif hb.Logins != nil && hb.Logins.Valid() {\n", "\tif hb.Logins != nil {\n",
			"./pkg/ownership/fsstore", "TestRenewReasonAndLogins"},
		{"fsstore: a transport's named cause is written beside its error only", "pkg/ownership/fsstore/renew.go",
			"\t\tif next.TransportError != \"\" && ownership.ValidReason(hb.TransportReason) {\n", "\t\tif true {\n",
			"./pkg/ownership/fsstore", "TestRenewReasonAndLogins"},
	}...)
}
