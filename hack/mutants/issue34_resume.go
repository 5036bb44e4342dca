package main

// The rules of issue 34's Discord handover: a stopping daemon leaves its
// session resumable and hands it over in a file that only the next owner
// of the same token uses, once; an IDENTIFY after a session is lost (op 9)
// goes through the budget check like any other; a deaf connection is made
// again, by a RESUME.
func init() {
	mutants = append(mutants, []mutant{
		{"discord: a handover of another token's session is not used", "pkg/chat/discord/handover.go",
			"\tif h.Identity != identity {\n", "\tif false {\n",
			"./pkg/chat/discord", "TestHandoverOfAnotherToken"},
		{"discord: a handover is removed before it is used, so it is used once", "pkg/chat/discord/handover.go",
			"\tif err := os.Remove(path); err != nil {\n", "\tif err := error(nil); err != nil {\n",
			"./pkg/chat/discord", "TestHandoverTakenOnce"},
		{"discord: a stop closes the gateway resumably", "pkg/chat/discord/transport.go",
			"\t\tcase <-ctx.Done():\n\t\t\tg.close(closeResumable)\n", "\t\tcase <-ctx.Done():\n\t\t\tg.close(websocket.CloseNormalClosure)\n",
			"./pkg/chat/discord", "TestTransportHandsOverItsSession"},
		{"discord: the IDENTIFY after op 9 is judged by the budget", "pkg/chat/discord/transport.go",
			"\td.resume = nil\n", "",
			"./pkg/chat/discord", "TestInvalidSessionIdentifiesThroughTheBudget|TestStaleHandoverIdentifiesThroughTheBudget"},
		{"discord: a deaf connection is made again (by a RESUME)", "pkg/chat/discord/transport.go",
			"\t\t\tg.close(closeResumable)\n\t\t\treturn fmt.Errorf(\"%w: %s\", errDeaf, why)\n", "\t\t\t_ = why\n",
			"./pkg/chat/discord", "TestDeafConnection"},
		{"fakediscord: a deaf connection is sent nothing", "pkg/chat/fakediscord/session.go",
			"\tif sess.conn != nil && !sess.conn.deaf {\n", "\tif sess.conn != nil {\n",
			"./pkg/chat/fakediscord", "TestDeafen"},
		{"handover: a session of other intents is not resumed", "pkg/chat/discord/handover.go",
			"\treturn tokenIdentity(fmt.Sprintf(\"%s\\x00intents=%d\", d.cfg.BotToken.Reveal(), intents(d.cfg)))\n",
			"\treturn tokenIdentity(fmt.Sprintf(\"%s\", d.cfg.BotToken.Reveal()))\n",
			"./pkg/chat/discord", "TestHandoverOfOtherIntentsIsNotResumed"},
	}...)
}

// The gaps issue 34's first session left: a handover's RESUME replays
// what was sent while neither daemon was connected (the fake holds the
// RESUME until the reply is sent, so only the replay can bring it), and
// a heartbeat the gateway asks for (op 1) is sent at once.
func init() {
	const dropsReplay = "\t\tselect {\n\t\tcase <-g.readyCh:\n\t\t\tdispatch(p.T, p.D)\n\t\tdefault:\n" +
		"\t\t\tif p.T == \"READY\" || p.T == \"RESUMED\" {\n\t\t\t\tdispatch(p.T, p.D)\n\t\t\t}\n\t\t}\n"
	mutants = append(mutants, []mutant{
		{"discord: the dispatches a RESUME replays are handled", "pkg/chat/discord/gateway.go",
			"\t\tdispatch(p.T, p.D)\n", dropsReplay,
			"./pkg/chat/discord", "TestGatewayIdentifyThenResume"},
		{"discord: a handover's replayed reply reaches the new daemon", "pkg/chat/discord/gateway.go",
			"\t\tdispatch(p.T, p.D)\n", dropsReplay,
			"./cmd/reconciler/systemtest", "TestDiscordHandoverResumes"},
		{"fakediscord: a RESUME replays the missed dispatches", "pkg/chat/fakediscord/session.go",
			"\t\t\ts.sendRawLocked(c, e.data)\n", "\t\t\t_ = e.data\n",
			"./cmd/reconciler/systemtest", "TestDiscordHandoverResumes"},
		{"discord: op 1 is answered with a heartbeat at once", "pkg/chat/discord/gateway.go",
			"\t\tif err := g.heartbeat(); err != nil {\n\t\t\treturn fmt.Errorf(\"answering a heartbeat request",
			"\t\tif err := error(nil); err != nil {\n\t\t\treturn fmt.Errorf(\"answering a heartbeat request",
			"./pkg/chat/discord", "TestGatewayHeartbeatRequest"},
	}...)
}
