package main

// The rules of issue 35's Slack doctor: every scope the relay uses has its
// line (one dropped from the list would let a bot without it pass); a bot
// out of the channel fails the channel's line; a missing_scope from
// conversations.info is shown once, on the scope's line, and the channel's
// kind is told from the scope the token lacks, so a private channel's
// scopes are judged as such.
func init() {
	mutants = append(mutants, []mutant{
		{"doctor: a scope the relay uses is on the required list", "pkg/chat/slack/doctorscopes.go",
			"\t\t{\"reactions:write\", \"to mark a reply it took with 👀 (reactions.add)\"},\n", "",
			"./pkg/chat/slack", "TestScopeLines|TestDoctorScopeLines"},
		{"doctor: a bot out of the channel fails the channel", "pkg/chat/slack/doctorchannel.go",
			"\t\tcase !ch.IsMember && !ch.IsIM && !ch.IsMpIM: // a DM carries no is_member\n", "\t\tcase false:\n",
			"./pkg/chat/slack", "TestDoctorFailures"},
		{"doctor: a missing read scope is shown on its own line alone", "pkg/chat/slack/doctorchannel.go",
			"\t\tif scopeExplains {\n", "\t\tif false {\n",
			"./pkg/chat/slack", "TestDoctorScopeLines"},
		{"doctor: the channel's kind is the one whose read scope is lacking", "pkg/chat/slack/doctorscopes.go",
			"\tif len(lacking) == 1 {\n", "\tif false {\n",
			"./pkg/chat/slack", "TestChannelKindFor"},
	}...)
}
