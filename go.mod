module github.com/coursekit/course

go 1.24.0

require (
	github.com/coursekit/course/labs v0.0.0
	github.com/coursekit/course/solutions v0.0.0
	github.com/spf13/cobra v1.10.2
	github.com/stretchr/testify v1.12.1
	golang.org/x/mod v0.30.0
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.38.0 // indirect
)

replace (
	github.com/coursekit/course/labs => ./labs
	github.com/coursekit/course/solutions => ./solutions
)
