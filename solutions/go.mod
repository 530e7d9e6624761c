module github.com/coursekit/course/solutions

go 1.22
