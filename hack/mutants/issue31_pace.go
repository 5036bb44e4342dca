package main

// Issue 31's pacing: the daemon keeps to the chat's posting budget
// before the service has to answer 429 (DESIGN 5, "Telegram": 1 a second
// per chat with short bursts, 20 a minute per group).
func init() {
	mutants = append(mutants, []mutant{
		{"telegram: a request that posts or edits waits for the chat's budget", "pkg/chat/telegram/poster.go",
			"\trelease, err := p.pace.acquire(ctx)\n", "\trelease, err := func() {}, error(nil)\n",
			"./pkg/chat/telegram", "TestBurstKeepsTheBudget"},
		{"telegram: an answered request stays in the budget's windows for their span", "pkg/chat/telegram/pace.go",
			"\t\tw.done = append(w.done, now)\n", "\t\t_ = now\n",
			"./pkg/chat/telegram", "TestBurstKeepsTheBudget"},
		{"faketelegram: an edit spends the chat's budget", "pkg/chat/faketelegram/api.go",
			"\"editmessagetext\":     {run: (*Server).editMessageTextLocked, posts: true},", "\"editmessagetext\":     {run: (*Server).editMessageTextLocked},",
			"./pkg/chat/faketelegram", "TestEditsSpendTheBudget"},
	}...)
}
