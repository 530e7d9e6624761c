package autograder

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Where the Kubernetes jobs keep their files, on the volume they share:
// the course's source tree, the submissions, and the reports.
const (
	K8sMount       = "/work"
	K8sCourse      = K8sMount + "/course"
	K8sSubmissions = K8sMount + "/submissions"
	K8sReports     = K8sMount + "/reports"
	// K8sTool is where each pod builds the course tool, off the volume.
	K8sTool = "/tmp/course-tool/course"
)

// KubernetesFiles are the manifests of ClassCI for a cluster, each
// applied in its turn (see docs/instructors.md).
type KubernetesFiles struct {
	// Volume is the PersistentVolumeClaim the jobs share and a Job whose
	// pod holds it open, to copy the course and the submissions in and the
	// reports out through.
	Volume []byte
	// Grade is the Indexed Job: Shards pods, each grading the shard of its
	// completion index.
	Grade []byte
	// Merge is the Job that merges the shards' reports, once Grade is
	// complete.
	Merge []byte
}

// KubernetesNames are the names of the manifests' files and of their
// objects, for lab chapter.
func KubernetesNames(chapter string) (volume, grade, merge string) {
	return "grade-lab" + chapter + "-volume.yaml", "grade-lab" + chapter + ".yaml", "grade-lab" + chapter + "-merge.yaml"
}

// Kubernetes returns the cluster's manifests: a claim and a pod to copy
// through, an Indexed Job (completionMode: Indexed) whose pod k grades
// shard JOB_COMPLETION_INDEX+1 of Shards into the volume, and a Job that
// merges the shards' reports there into grades.csv and report.html. Every
// pod runs in Go's official image, installs bubblewrap and builds the
// course tool from the course's tree on the volume.
func (c *ClassCI) Kubernetes() (*KubernetesFiles, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	goVersion, err := c.goVersion()
	if err != nil {
		return nil, err
	}
	claim := c.Claim
	if claim == "" {
		claim = "course-grading"
	}
	if !k8sName.MatchString(claim) || len(claim) > 63 {
		return nil, fmt.Errorf("claim %q: not a Kubernetes name (lower-case letters, digits and -)", claim)
	}
	image := "golang:" + strings.TrimPrefix(goVersion, "go")
	name := "grade-lab" + strings.ToLower(strings.ReplaceAll(c.Lab.Chapter, ".", "-"))
	if !k8sName.MatchString(name) {
		return nil, fmt.Errorf("chapter %q makes no Kubernetes name", c.Lab.Chapter)
	}
	volumes := []k8sVolume{{Name: "work", PersistentVolumeClaim: k8sClaimRef{ClaimName: claim}}}
	mounts := []k8sMount{{Name: "work", MountPath: K8sMount}}
	env := func(more ...k8sEnv) []k8sEnv {
		return append([]k8sEnv{{envCourse, K8sTool}, {envSubmissions, K8sSubmissions}, {envReports, K8sReports}}, more...)
	}
	job := func(jobName, component string, spec k8sJobSpec, ctr k8sContainer) k8sJob {
		labels := map[string]string{"app.kubernetes.io/name": "course-grade", "app.kubernetes.io/instance": name, "app.kubernetes.io/component": component}
		ctr.Image, ctr.VolumeMounts = image, mounts
		spec.Template = k8sPodTemplate{Metadata: k8sMeta{Labels: labels},
			Spec: k8sPodSpec{RestartPolicy: "Never", Containers: []k8sContainer{ctr}, Volumes: volumes}}
		return k8sJob{APIVersion: "batch/v1", Kind: "Job", Metadata: k8sMeta{Name: jobName, Labels: labels}, Spec: spec}
	}

	files := job(name+"-files", "files", k8sJobSpec{Completions: 1, Parallelism: 1, ActiveDeadlineSeconds: 4 * 3600},
		k8sContainer{Name: "files", WorkingDir: K8sMount, Command: []string{"sleep", "14400"}})
	pvc := k8sClaim{APIVersion: "v1", Kind: "PersistentVolumeClaim", Metadata: k8sMeta{Name: claim},
		Spec: k8sClaimSpec{AccessModes: []string{"ReadWriteMany"}, Resources: k8sClaimResources{Requests: map[string]string{"storage": "10Gi"}}}}

	shardScript := aptSandboxScript + "\n" + gradingModulesScript + buildScript + `SHARD=$((JOB_COMPLETION_INDEX + 1))` + "\n" + c.shardScript("--jobs", "2", "--runs", "2")
	grade := job(name, "shard", k8sJobSpec{CompletionMode: "Indexed", Completions: c.Shards, Parallelism: c.Shards, BackoffLimit: c.Shards},
		k8sContainer{Name: "grade", WorkingDir: K8sCourse, Command: []string{"bash", "-ec", shardScript},
			Env:       env(k8sEnv{envShards, strconv.Itoa(c.Shards)}),
			Resources: &k8sResources{Requests: map[string]string{"cpu": "2", "memory": "6Gi"}, Limits: map[string]string{"memory": "6Gi"}}})
	merge := job(name+"-merge", "merge", k8sJobSpec{Completions: 1, Parallelism: 1},
		k8sContainer{Name: "merge", WorkingDir: K8sCourse, Command: []string{"bash", "-ec", buildScript + c.mergeScript()},
			Env:       env(),
			Resources: &k8sResources{Requests: map[string]string{"cpu": "1", "memory": "1Gi"}}})

	out := &KubernetesFiles{}
	volumeName, gradeName, mergeName := KubernetesNames(c.Lab.Chapter)
	for _, f := range []struct {
		to   *[]byte
		head string
		docs []any
	}{
		{&out.Volume, fmt.Sprintf("# %s: the volume the jobs share (ReadWriteMany: set storageClassName to a class that\n"+
			"# gives it, or the cluster's default must), and a pod that holds it open for 4 hours to copy\n"+
			"# the course, the submissions and the reports through. Made by `course ci kubernetes`;\n"+
			"# see docs/instructors.md in the course.\n", volumeName), []any{pvc, files}},
		{&out.Grade, c.summary("Kubernetes", "kubernetes") + fmt.Sprintf("# Apply it once the volume holds the course and the submissions; then %s.\n", mergeName), []any{grade}},
		{&out.Merge, fmt.Sprintf("# %s: merges the reports of %s's %d shards into grades.csv and report.html, on\n"+
			"# the volume. Apply it once job/%s is complete. Made by `course ci kubernetes`.\n", mergeName, gradeName, c.Shards, name), []any{merge}},
	} {
		var b bytes.Buffer
		b.WriteString(f.head)
		for i, d := range f.docs {
			if i > 0 {
				b.WriteString("---\n")
			}
			if err := encodeYAML(&b, d); err != nil {
				return nil, err
			}
		}
		*f.to = b.Bytes()
	}
	return out, nil
}

type k8sJob struct {
	APIVersion string     `yaml:"apiVersion"`
	Kind       string     `yaml:"kind"`
	Metadata   k8sMeta    `yaml:"metadata"`
	Spec       k8sJobSpec `yaml:"spec"`
}

type k8sMeta struct {
	Name   string            `yaml:"name,omitempty"`
	Labels map[string]string `yaml:"labels,omitempty"`
}

type k8sJobSpec struct {
	CompletionMode        string         `yaml:"completionMode,omitempty"`
	Completions           int            `yaml:"completions"`
	Parallelism           int            `yaml:"parallelism"`
	BackoffLimit          int            `yaml:"backoffLimit"`
	ActiveDeadlineSeconds int            `yaml:"activeDeadlineSeconds,omitempty"`
	Template              k8sPodTemplate `yaml:"template"`
}

type k8sPodTemplate struct {
	Metadata k8sMeta    `yaml:"metadata"`
	Spec     k8sPodSpec `yaml:"spec"`
}

type k8sPodSpec struct {
	RestartPolicy string         `yaml:"restartPolicy"`
	Containers    []k8sContainer `yaml:"containers"`
	Volumes       []k8sVolume    `yaml:"volumes"`
}

type k8sContainer struct {
	Name         string        `yaml:"name"`
	Image        string        `yaml:"image"`
	WorkingDir   string        `yaml:"workingDir"`
	Command      []string      `yaml:"command"`
	Env          []k8sEnv      `yaml:"env,omitempty"`
	Resources    *k8sResources `yaml:"resources,omitempty"`
	VolumeMounts []k8sMount    `yaml:"volumeMounts"`
}

type k8sEnv struct {
	Name  string `yaml:"name"`
	Value string `yaml:"value"`
}

type k8sResources struct {
	Requests map[string]string `yaml:"requests,omitempty"`
	Limits   map[string]string `yaml:"limits,omitempty"`
}

type k8sMount struct {
	Name      string `yaml:"name"`
	MountPath string `yaml:"mountPath"`
}

type k8sVolume struct {
	Name                  string      `yaml:"name"`
	PersistentVolumeClaim k8sClaimRef `yaml:"persistentVolumeClaim"`
}

type k8sClaimRef struct {
	ClaimName string `yaml:"claimName"`
}

type k8sClaim struct {
	APIVersion string       `yaml:"apiVersion"`
	Kind       string       `yaml:"kind"`
	Metadata   k8sMeta      `yaml:"metadata"`
	Spec       k8sClaimSpec `yaml:"spec"`
}

type k8sClaimSpec struct {
	AccessModes []string          `yaml:"accessModes"`
	Resources   k8sClaimResources `yaml:"resources"`
}

type k8sClaimResources struct {
	Requests map[string]string `yaml:"requests"`
}
