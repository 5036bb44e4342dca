package main

// The rules of issue 34's part at the services' limits: more Socket Mode
// connections of the app than this daemon's one is TokenInUse (the
// transport down for a reason, so the name is Degraded, never Ready);
// doctor fails two other connections.
func init() {
	mutants = append(mutants, []mutant{
		{"slack: a hello counting other connections of the app is TokenInUse", "pkg/chat/slack/tokeninuse.go",
			"\tif connections > 1 {\n", "\tif connections > 99 {\n",
			"./pkg/chat/slack", "TestSecondConnectionIsTokenInUse"},
		{"doctor: two other Socket Mode connections of the app fail the socket line", "pkg/chat/slack/doctorsocket.go",
			"\t\tcase others == 1:\n", "\t\tdefault:\n",
			"./pkg/chat/slack", "TestDoctorCountsTheAppsConnections|TestSocketModeLine"},
	}...)
}

// Edits of one message: at most one request per EditGap, and one a later
// queued message edits again is left to it (the latest content wins).
func init() {
	mutants = append(mutants, []mutant{
		{"relay: an edit waits for its message's edit turn", "pkg/relay/coalesce.go",
			"\tif wait := EditGap - time.Since(at); wait > 0 {\n", "\tif wait := EditGap - time.Since(at); false {\n",
			"./pkg/relay", "TestRapidEditsAreCoalesced"},
		{"relay: an edit a later queued message makes again is coalesced", "pkg/relay/coalesce.go",
			"\tsuperseded := r.supersededLocked(m)\n", "\tsuperseded := false\n",
			"./pkg/relay", "TestRapidEditsAreCoalesced"},
		{"relay: a coalesced edit's parts are the replaced message's", "pkg/relay/coalesce.go",
			"\t\tif err := r.record(ctx, rec, bus.OpDone, replaced[k]); err != nil {\n", "\t\tif err := error(nil); err != nil {\n",
			"./pkg/relay", "TestRapidEditsAreCoalesced"},
	}...)
}

// Discord's rule on edits of messages older than an hour: its 30046 is a
// rate limit whatever the status, the edit kept.
func init() {
	mutants = append(mutants, mutant{"discord: an old message's spent edits (30046) are a rate limit", "pkg/chat/discord/classify.go",
		"\tcase status == http.StatusTooManyRequests, e.Code == codeOldMessageEdits:\n", "\tcase status == http.StatusTooManyRequests:\n",
		"./pkg/chat/discord", "TestClassify"})
}

// A deaf connection: a sweep's landing of a reply the live connection
// should have delivered is counted missed, only once it is past the
// grace, and the transport connects again.
func init() {
	mutants = append(mutants, []mutant{
		{"inbound: a periodic read is a sweep", "pkg/inbound/history.go",
			"\t\tcase <-sweeps:\n\t\t\tsweep = true\n", "\t\tcase <-sweeps:\n\t\t\tsweep = false\n",
			"./pkg/inbound", "TestSweepLandsWhatTheLiveStreamMissed"},
		{"inbound: a reply is missed only past the grace", "pkg/inbound/sweep.go",
			"\treturn !ev.Time.IsZero() && in.opts.Now().Sub(ev.Time) >= in.missedGrace()\n", "\treturn true\n",
			"./pkg/inbound", "TestMissedBy"},
		{"inbound: a reply a read landed too young to judge is judged at a later sweep", "pkg/inbound/sweep.go",
			"\t\tin.young[ev.ID] = ev.Time\n", "\t\t_ = ev.Time\n",
			"./pkg/inbound", "TestYoungSweptRepliesAreJudgedLater"},
		{"inbound: a reply heard live is never missed", "pkg/inbound/sweep.go",
			"\tdelete(in.young, id)\n\tin.heard[id] = in.opts.Now()\n", "\t_ = id\n",
			"./pkg/inbound", "TestYoungSweptRepliesAreJudgedLater"},
		{"slack: a deaf socket is made again", "pkg/chat/slack/transport.go",
			"\t\t\tcancel()\n\t\t\t<-errc\n\t\t\treturn fmt.Errorf(\"reconnecting: %s\", why)\n", "\t\t\t_ = why\n",
			"./pkg/chat/slack", "TestDeafConnection"},
	}...)
}
