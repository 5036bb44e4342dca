package main

// Issue 33's Discord part: a download asks only Discord's file hosts and
// stops at max; an upload sends exactly the file recorded; a file part's
// lookup takes only the bot's message with that file; the fake refuses
// files over Discord's limits and counts a token sent to its CDN.
func init() {
	mutants = append(mutants, []mutant{
		{"discord: Fetch asks only Discord's file hosts", "pkg/chat/discord/fetch.go",
			"\tif err != nil || !p.fileHost(u) {\n", "\tif err != nil {\n",
			"./pkg/chat/discord", "TestReplyFilesAreFetchedWithoutTheToken"},
		{"discord: Fetch follows no redirect off the file hosts", "pkg/chat/discord/fetch.go",
			"\t\tif !p.fileHost(req.URL) {\n", "\t\tif false {\n",
			"./pkg/chat/discord", "TestFetchFollowsNoRedirectOffTheFileHosts"},
		{"discord: Fetch stops past max", "pkg/chat/discord/fetch.go",
			"\tcase n > max:\n", "\tcase false:\n",
			"./pkg/chat/discord", "TestFetchStopsPastMax"},
		{"discord: the CDN is https only", "pkg/chat/discord/fetch.go",
			"\tif u.Scheme != \"https\" || (u.Port() != \"\" && u.Port() != \"443\") {\n", "\tif false {\n",
			"./pkg/chat/discord", "TestFileHost|TestReplyFilesAreFetchedWithoutTheToken"},
		{"discord: an upload that grew is not cut to the size recorded", "pkg/chat/discord/upload.go",
			"\t\tif n, _ := io.ReadFull(e.r, one[:]); n > 0 {\n", "\t\tif n, _ := io.ReadFull(e.r, one[:]); false && n > 0 {\n",
			"./pkg/chat/discord", "TestUploadOfAChangedFileStoresNothing"},
		{"discord: a file part's lookup matches the file's size", "pkg/chat/discord/files.go",
			"\tif len(got) != 1 || got[0].Size != u.Size {\n", "\tif len(got) != 1 {\n",
			"./pkg/chat/discord", "TestLookupOfAFileNeverPostedFindsNothing"},
		{"discord: outside the nonce window a file part is found by its file", "pkg/chat/discord/files.go",
			"\treturn a.Filename == u.Name || a.Title == u.Name || looseName(a.Filename) == looseName(u.Name)\n", "\t_ = a\n\treturn false\n",
			"./pkg/chat/discord", "TestUploadAcceptedThenFailedIsFound|TestConformance/Files/CrashMatrix/history"},
		{"fakediscord: a file over 10 MiB is 413", "pkg/chat/fakediscord/attachments.go",
			"\t\tif len(content) > MaxFileBytes {\n", "\t\tif false {\n",
			"./pkg/chat/fakediscord", "TestUploadsThroughDiscordgo"},
		{"fakediscord: a token sent to the CDN is counted", "pkg/chat/fakediscord/attachments.go",
			"\t\ts.tokensToCDN++\n", "\t\t_ = 0\n",
			"./pkg/chat/fakediscord", "TestUploadsThroughDiscordgo"},
	}...)
}
