package main

// Issue 32's Discord part: the fake refuses answers as Discord does (or a
// transport that answers twice or late passes), and the poster's buttons
// and mentions are exactly the ask's.
func init() {
	mutants = append(mutants, []mutant{
		{"fakediscord: a second answer to one interaction is 40060", "pkg/chat/fakediscord/callbacks.go",
			"\tcase acked:\n", "\tcase false && acked:\n",
			"./pkg/chat/fakediscord", "TestButtonsAndClicksThroughDiscordgo"},
		{"fakediscord: an answer past the deadline is 10062", "pkg/chat/fakediscord/callbacks.go",
			"\tcase a.At.Sub(i.At) > s.opts.InteractionDeadline:\n", "\tcase false:\n",
			"./pkg/chat/fakediscord", "TestLateAnswerIsUnknownInteraction"},
		{"fakediscord: at most five buttons in a row", "pkg/chat/fakediscord/components.go",
			"len(row.Components) > maxRowButtons", "len(row.Components) > maxRowButtons+1",
			"./pkg/chat/fakediscord", "TestComponentsThroughDiscordgo"},
		{"discord: an edit removes the buttons", "pkg/chat/discord/poster.go",
			`"content": e.Text, "components": noComponents, `, `"content": e.Text, `,
			"./pkg/chat/discord", "TestAskPostsButtonsAndPingsOnlyItsUsers"},
		{"discord: a lookup by content takes a message with the part's buttons only", "pkg/chat/discord/lookup.go",
			" && sameButtons(m.Components, part.Choices) {", " {",
			"./pkg/chat/discord", "TestLookupFindsAnAskByContentAndButtons"},
		{"discord: an ask's ping allows its users by id, nothing parsed", "pkg/chat/discord/buttons.go",
			"allowedMentions{Parse: []string{}, Users: users}", `allowedMentions{Parse: []string{"users"}, Users: users}`,
			"./pkg/chat/discord", "TestRenderPart|TestAskPostsButtonsAndPingsOnlyItsUsers"},
		{"discord: a click whose decision failed is not answered", "pkg/chat/discord/click.go",
			"\tif err != nil {\n\t\treturn v, &clickError{what: \"deciding\"", "\tif err != nil && false {\n\t\treturn v, &clickError{what: \"deciding\"",
			"./pkg/chat/discord", "TestOnClickWithoutAVerdictDoesNotAnswer"},
		{"discord: a click is answered privately", "pkg/chat/discord/click.go",
			"Flags: discordgo.MessageFlagsEphemeral,", "",
			"./pkg/chat/discord", "TestOnClickAnswersPerVerdict"},
		{"discord: the interaction token is kept out of errors", "pkg/chat/discord/click.go",
			"err: redactToken(err, i.Token)}", "err: err}",
			"./pkg/chat/discord", "TestOnClickKeepsTheInteractionTokenOutOfErrors"},
		{"discord: the gateway's clicks reach the inbound side", "pkg/chat/discord/transport.go",
			"\t\t\t\tgo d.click(ctx, s, &ic)\n", "",
			"./pkg/chat/discord", "TestAskDecidedThroughTheGateway"},
	}...)
}
