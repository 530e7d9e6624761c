// Package piconform is the pi conformance suite of the teaching agent's
// store: its tests hold the lab's reference solution, and every alternative
// solution, to pi itself, the coding agent whose session format the lab
// speaks. The package has tests only.
//
// pi is a node program, pinned in testdata/pi (package.json and
// package-lock.json; `npm ci --ignore-scripts` there installs it, and
// node_modules is ignored by git and left out of a release). Its script,
// testdata/pi/pi.mjs, drives pi's own SessionManager with no model and no
// network: it wrote the lab's fixtures (labs/*/testdata/pi/, a session file
// and pi's context at each of its leaves), and it reads back what the lab's
// store wrote. The lab's side, testdata/driver, is built inside a workspace
// of the lab with the solution under test, as a student's workspace is.
//
// The suite says, leaf by leaf, where the store builds pi's context (its
// messages, model and thinking level) and where it does not, and why: the
// differences are an explicit, typed list (known_test.go) that the tests
// check both ways, so a new difference fails and so does a listed one that
// went away. Only the lab's own rules may be listed, the places where the
// store is stricter than pi on purpose; some fixtures are files pi wrote
// and the script then changed, to show what pi does with a file the lab
// refuses.
package piconform
