// Package format writes one submission's report (a report.Report) in the
// forms people and platforms read: text for a terminal (WriteText), JSON
// (WriteJSON, which --from reads back), JUnit XML for CI systems (JUnit,
// JUnitClass), Gradescope's results.json (Gradescope), Classroom 50's
// result.json (Classroom50) and a Markdown summary for CI job pages
// (WriteMarkdown). It reads the report's typed fields only: a verdict is
// decided in package judge, never here. A class's table, CSV and HTML
// page are package class's.
package format
