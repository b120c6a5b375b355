{{- define "questionflow.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "questionflow.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "questionflow.selector" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "questionflow.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "questionflow.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* A build ID as a name and label value: lower case, [a-z0-9-], at most 40 characters */}}
{{- define "questionflow.buildName" -}}
{{- . | toString | lower | replace "." "-" | replace "_" "-" | replace "+" "-" | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{/* The pod of one role: call with (dict "root" $ "role" "api"|"worker" "values" .Values.api|.Values.worker), and
     "build" (an entry of versioning.builds) for a versioned worker */}}
{{- define "questionflow.pod" -}}
{{- $root := .root -}}
{{- $build := .build | default dict -}}
metadata:
  labels:
    {{- include "questionflow.selector" $root | nindent 4 }}
    app.kubernetes.io/component: {{ .role }}
    {{- with .build }}
    questionflow.dev/build: {{ include "questionflow.buildName" .buildId | quote }}
    {{- end }}
  annotations:
    checksum/config: {{ include (print $root.Template.BasePath "/configmap.yaml") $root | sha256sum }}
spec:
  serviceAccountName: {{ include "questionflow.serviceAccountName" $root }}
  automountServiceAccountToken: false
  {{- with $root.Values.imagePullSecrets }}
  imagePullSecrets:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  securityContext:
    {{- toYaml $root.Values.podSecurityContext | nindent 4 }}
  # the preStop pause, then the app's own grace (CS_SHUTDOWN_GRACE), then a margin before SIGKILL
  terminationGracePeriodSeconds: {{ add $root.Values.preStopSeconds $root.Values.shutdownGraceSeconds 5 }}
  containers:
    - name: questionflow
      image: "{{ $root.Values.image.repository }}:{{ $build.tag | default $build.buildId | default $root.Values.image.tag | default $root.Chart.AppVersion }}"
      imagePullPolicy: {{ $root.Values.image.pullPolicy }}
      securityContext:
        {{- toYaml $root.Values.securityContext | nindent 8 }}
      ports:
        - name: http
          containerPort: 8080
      envFrom:
        - configMapRef:
            name: {{ include "questionflow.fullname" $root }}
      env:
        - name: CS_ROLE
          value: {{ .role }}
        {{- with .build }}
        - name: TEMPORAL_BUILD_ID
          value: {{ .buildId | quote }}
        - name: TEMPORAL_DEPLOYMENT_NAME
          value: {{ $root.Values.versioning.deploymentName | quote }}
        {{- end }}
      volumeMounts:
        - name: secrets
          mountPath: /etc/questionflow/secrets
          readOnly: true
        - name: tmp
          mountPath: /tmp
      startupProbe:
        httpGet: {path: /actuator/health/liveness, port: http}
        periodSeconds: 5
        failureThreshold: 60
      livenessProbe:
        httpGet: {path: /actuator/health/liveness, port: http}
        periodSeconds: 10
        failureThreshold: 3
      readinessProbe:
        httpGet: {path: /actuator/health/readiness, port: http}
        periodSeconds: 5
        failureThreshold: 2
      lifecycle:
        preStop:
          # keep serving while endpoints and load balancers drop the pod; then SIGTERM starts the app's drain
          sleep:
            seconds: {{ $root.Values.preStopSeconds }}
      resources:
        {{- toYaml .values.resources | nindent 8 }}
  volumes:
    - name: secrets
      secret:
        secretName: {{ required "secrets.existingSecret is required" $root.Values.secrets.existingSecret }}
    - name: tmp
      emptyDir: {}
  {{- with $root.Values.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $root.Values.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $root.Values.affinity }}
  affinity:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end -}}
