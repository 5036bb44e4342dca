package main

// The rules of issue 33's Slack part: the bot token goes only to Slack's
// own file host; a file id is staged before its upload; a lookup says
// "not found" only when files.info shows the upload never completed; the
// fake completes a file once and serves users' files to a bot token only.
func init() {
	mutants = append(mutants, []mutant{
		{"slack: a file is fetched only from Slack's file host", "pkg/chat/slack/fetch.go",
			"\tif err := p.fileHost(where); err != nil {\n", "\tif err := p.fileHost(where); false && err != nil {\n",
			"./pkg/chat/slack", "TestFetch"},
		{"slack: the file host is https://files.slack.com itself", "pkg/chat/slack/files.go",
			"\tif u.Scheme == \"https\" && strings.EqualFold(u.Host, \"files.slack.com\") {\n", "\tif strings.HasSuffix(u.Host, \"files.slack.com\") {\n",
			"./pkg/chat/slack", "TestFileHost"},
		{"slack: the file id is staged before the upload", "pkg/chat/slack/files.go",
			"\tif err := part.Stage(ctx, ticket.FileID); err != nil {\n", "\tif err := error(nil); err != nil {\n",
			"./pkg/chat/slack", "TestPostFile"},
		{"slack: a completed file not shared yet is not \"not found\"", "pkg/chat/slack/files.go",
			"\tcase st == unshared:\n", "\tcase false:\n",
			"./pkg/chat/slack", "TestFileShareLag"},
		{"fakeslack: a file is completed once", "pkg/chat/fakeslack/files.go",
			"\t\tif !f.Uploaded || f.Completed {\n", "\t\tif !f.Uploaded {\n",
			"./pkg/chat/fakeslack", "TestCompleteOnce"},
		{"fakeslack: users' files are served to a bot token only", "pkg/chat/fakeslack/filehttp.go",
			"\tif !allowed {\n", "\tif !allowed && false {\n",
			"./pkg/chat/fakeslack", "TestUserFiles"},
	}...)
}
