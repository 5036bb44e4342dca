package main

// Issue 33, part E (Telegram files): a download's errors never carry its
// URL (the token is in it); a file known to be over the inbound limit is
// not fetched, and a download is cut past it; the id probe of a text
// passes the bot's documents rather than block on them. The fake counts
// an upload as a post and serves files for the bot's token only.
func init() {
	mutants = append(mutants, []mutant{
		{"telegram files: a download's error drops the URL that holds the token", "pkg/chat/telegram/fetch.go",
			"\t\t\terr = uerr.Err // url.Error's text names the URL, and the URL the token\n", "\t\t\t_ = uerr\n",
			"./pkg/chat/telegram", "TestFetch"},
		{"telegram files: a file whose size is known over max is not fetched", "pkg/chat/telegram/fetch.go",
			"\tif f.Size > max {\n", "\tif false {\n",
			"./pkg/chat/telegram", "TestFetch"},
		{"telegram files: a download is cut past max", "pkg/chat/telegram/fetch.go",
			"\tif n > max {\n", "\tif false {\n",
			"./pkg/chat/telegram", "TestFetch"},
		{"telegram files: the probe passes the bot's message of the other kind", "pkg/chat/telegram/errors.go",
			"\t\treturn OtherKind\n", "\t\treturn Unknown\n",
			"./pkg/chat/telegram", "TestLookupFindsAnUploadWhoseAnswerWasLost"},
		{"faketelegram: an upload is a post for the shared fault hooks", "pkg/chat/faketelegram/api.go",
			"func isMessagePost(method string) bool { return method == \"sendmessage\" || method == \"senddocument\" }",
			"func isMessagePost(method string) bool { return method == \"sendmessage\" }",
			"./pkg/chat/faketelegram", "TestUploadMeetsPostFaults"},
		{"faketelegram: a file is served for the bot's token only", "pkg/chat/faketelegram/files.go",
			"\tif isBot && token == s.opts.Token && !s.faults.revoked && r.Method == http.MethodGet {\n",
			"\tif isBot && token != \"\" && r.Method == http.MethodGet {\n",
			"./pkg/chat/faketelegram", "TestGetFileDownloads"},
	}...)
}
