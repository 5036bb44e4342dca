package main

// The rules of issue 32 for Slack: a click the inbound side did not
// settle is never acked (Slack delivers it again); the edit that shows an
// ask's outcome leaves it no buttons; an ask mentions user ids only.
func init() {
	mutants = append(mutants, []mutant{
		{"slack: an unsettled click is not acked", "pkg/chat/slack/clicks.go",
			"\t\t\tif err != nil {\n\t\t\t\tt.opts.Log.Error(err, \"a click was not settled", "\t\t\tif false {\n\t\t\t\tt.opts.Log.Error(err, \"a click was not settled",
			"./pkg/chat/slack", "TestUnsettledClickIsNotAcked"},
		{"slack: an edit leaves no buttons", "pkg/chat/slack/poster.go",
			"\topts := append(literal(escape(e.Text)), slackapi.MsgOptionBlocks())\n", "\topts := literal(escape(e.Text))\n",
			"./pkg/chat/slack", "TestAskPostedWithButtonsEditedWithout"},
		{"slack: only user ids are mentioned", "pkg/chat/slack/blocks.go",
			"\t\tif userID.MatchString(id) {\n", "\t\tif id != \"\" {\n",
			"./pkg/chat/slack", "TestRender"},
	}...)
}
