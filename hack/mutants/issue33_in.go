package main

// The rules of issue 33's inbound files: a file attached to a reply lands
// under a sanitized name (its base only, no control or bidi characters,
// not hidden), unique even on a case-insensitive file system, 0600, at
// most maxInboundFileBytes whatever the adapter does, never fetched for a
// size the service reports over it; the reply never lands without its
// files (a transient fetch error owes it), its files are published
// before it, a stage no record names is removed at start, and one that
// did not reach its record is removed at once; what an inbox file lists
// points only into its own files directory, decoded strictly, and
// readers neither take the files directory for a message nor follow a
// link to a listed file.
func init() {
	const (
		in  = "./pkg/inbound"
		bus = "./pkg/bus"
	)
	mutants = append(mutants, []mutant{
		{"inbound files: a name is its base only", "pkg/bus/inboxname.go",
			"\tif i := strings.LastIndexAny(name, `/\\`); i >= 0 {\n", "\tif i := strings.LastIndexAny(name, `/\\`); false && i >= 0 {\n",
			bus, "TestSanitizeInboxFileName$"},
		{"inbound files: a name is never hidden", "pkg/bus/inboxname.go",
			"\trest := strings.TrimLeft(name, \".\")\n", "\trest := name\n",
			bus, "TestSanitizeInboxFileName$"},
		{"inbound files: control and bidi characters leave a name", "pkg/bus/inboxname.go",
			"\t\tif unsafeNameRune(r) {\n", "\t\tif false {\n",
			bus, "TestSanitizeInboxFileName$"},
		{"inbound files: names folding to one are made unique", "pkg/bus/inboxname.go",
			"\tfor k := 2; used[foldName(out)]; k++ {\n", "\tfor k := 2; false; k++ {\n",
			bus, "TestUniqueInboxFileName$"},
		{"inbound files: a listed path is the one its name gives", "pkg/bus/inboxfilelist.go",
			"\t\tif want := InboxFilePath(file, f.Name); f.Skipped == \"\" && f.Path != want {\n", "\t\tif want := InboxFilePath(file, f.Name); f.Skipped == \"\" && false {\n",
			bus, "TestInboxFilesValidate$"},
		{"inbound files: a listing's keys are decoded strictly", "pkg/bus/inbox.go",
			"\tif err := checkFileKeys(data); err != nil {\n", "\tif err := error(nil); err != nil {\n",
			bus, "TestDecodeInboxFilesStrictly$"},
		{"inbound files: a staged file is new, private, not through a link", "pkg/bus/inboxfilesdir.go",
			"os.O_WRONLY|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)", "os.O_WRONLY|os.O_CREATE|unix.O_CLOEXEC, 0o644)",
			in, "TestReplyWithFilesLandsBesideIt$"},
		{"inbound files: readers pass over a reply's files directory", "pkg/bus/inboxread.go",
			"\t\tif isFilesDir(name) && e.IsDir() {\n", "\t\tif false {\n",
			bus, "TestInboxReaderAndLandedFiles$"},
		{"inbound files: a listed file is never reached through a link", "pkg/bus/inboxread.go",
			"\tif !e.Regular() || !e.Mine() {\n", "\tif false {\n",
			bus, "TestInboxReaderAndLandedFiles$"},
		{"inbound files: a file the service says is over the limit is not fetched", "pkg/inbound/files.go",
			"\tif rf.Size > limit {\n", "\tif false {\n",
			in, "TestReplyWithFilesLandsBesideIt$"},
		{"inbound files: only an http(s) URL is handed to Fetch", "pkg/inbound/files.go",
			"\tif why := refusedURL(rf.URL); why != \"\" {\n", "\tif why := refusedURL(rf.URL); false {\n",
			in, "TestReplyWithFilesLandsBesideIt$"},
		{"inbound files: no more than the limit is written, whatever the adapter does", "pkg/inbound/files.go",
			"\tif int64(len(p)) > c.left {\n", "\tif false {\n",
			in, "TestFetchOverTheLimitIsSkipped$"},
		{"inbound files: a reply never lands without its files fetched", "pkg/inbound/land.go",
			"\tif len(ev.Files) > 0 && fetched == nil {\n", "\tif false {\n",
			in, "TestReplyWithFilesLandsBesideIt$"},
		{"inbound files: one delivery of a reply fetches at a time", "pkg/inbound/files.go",
			"\t\tif busy, ok := in.fetching[ev.ID]; ok {\n", "\t\tif busy, ok := in.fetching[ev.ID]; false && ok {\n",
			in, "TestConcurrentDeliveriesFetchOnce$"},
		{"inbound files: a transient fetch error owes the reply", "pkg/inbound/files.go",
			"\t\tin.owe(ev, session)\n\t\treturn 0, in.failed(fmt.Errorf(\"landing %s: %w\", ev.ID, err))\n\t}\n\tin.opts.Step(StepFetched",
			"\t\treturn 0, in.failed(fmt.Errorf(\"landing %s: %w\", ev.ID, err))\n\t}\n\tin.opts.Step(StepFetched",
			in, "TestTransientFetchErrorOwesTheReply$"},
		{"inbound files: the files are published before the reply", "pkg/inbound/land.go",
			"\tmoved, err := bus.PublishInboxFiles(in.opts.Bus, session, file)\n", "\tmoved, err := false, error(nil)\n",
			in, "TestFilesPublishedBeforeTheReply$|TestReplyWithFilesLandsBesideIt$"},
		{"inbound files: a stage no record names is removed at start", "pkg/inbound/recover.go",
			"\t\tif !named[s] {\n\t\t\tif err := bus.RemoveStagedInboxFiles(d, s); err != nil {\n", "\t\tif false {\n\t\t\tif err := bus.RemoveStagedInboxFiles(d, s); err != nil {\n",
			in, "TestRecoveryRemovesOrPublishesFilesStages$"},
		{"inbound files: a stage that never reached its record is removed", "pkg/inbound/files.go",
			"\tif !fetched.recording {\n", "\tif false {\n",
			in, "TestFenceRefusalLeavesNoFilesStage$"},
	}...)
}
