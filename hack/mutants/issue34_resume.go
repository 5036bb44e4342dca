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
