// Package linefile reads files of lines that this process does not trust:
// another process writes them (a daemon's log, the event history), and
// anyone with the uid could have put anything there. Every open refuses a
// symbolic link and anything but a regular file (a FIFO would block the
// reader forever), every line is capped, and a follower keeps reading
// across the rotation its writer does (rename, then a new file).
package linefile
