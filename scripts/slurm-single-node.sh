#!/usr/bin/env bash
# A real single-node Slurm cluster on this machine, for lb's Slurm tests: Debian's
# slurm-wlm and munge, a minimal slurm.conf for localhost, the daemons started
# without systemd. Idempotent: a second call finds the cluster up and returns.
#
#   scripts/slurm-single-node.sh          # install if needed, configure, start
#   scripts/slurm-single-node.sh stop     # stop the daemons this script started
#
# The script records the PID of each daemon it starts under /run/lb-slurm-test
# and `stop` ends those processes only (after checking each PID still runs that
# daemon): a slurmd, slurmctld or munged that was already running — another
# user's, the host's — is neither owned nor stopped.
# Needs root (it installs packages and runs the daemons). Everything it writes is
# under /etc/slurm, /etc/munge, /var/spool/slurm*, /var/log/slurm and /run/munge.
set -euo pipefail

state=/run/lb-slurm-test

if [[ "${1:-}" == "stop" ]]; then
  for name in slurmd slurmctld munged; do
    f="$state/$name.pid"
    [[ -f "$f" ]] || continue
    pid=$(cat "$f")
    # Only if that PID still runs the daemon we started (not a reused PID).
    if [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == "$name" ]]; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
    rm -f "$f"
  done
  exit 0
fi

# own NAME PIDFILE: record the daemon NAME just started (its PID file, once
# it has written it) as this script's, for `stop`.
own() {
  local name=$1 pidfile=$2
  mkdir -p "$state"
  for _ in $(seq 1 50); do
    if [[ -s "$pidfile" ]]; then
      cp "$pidfile" "$state/$name.pid"
      return 0
    fi
    sleep 0.1
  done
  echo "scripts/slurm-single-node.sh: $name wrote no $pidfile" >&2
  return 1
}

if [[ $(id -u) -ne 0 ]]; then
  echo "scripts/slurm-single-node.sh: needs root (installs slurm-wlm, runs its daemons)" >&2
  exit 1
fi

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  echo "== installing slurm-wlm and munge (Debian packages)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq slurm-wlm munge >/dev/null
fi

host=$(hostname -s)
cpus=$(nproc)
mem_mib=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 512 ))

# munge: a key, its directories, the daemon.
mkdir -p /etc/munge /var/lib/munge /var/log/munge /run/munge
if [[ ! -s /etc/munge/munge.key ]]; then
  dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none
fi
chown -R munge:munge /etc/munge /var/lib/munge /var/log/munge /run/munge 2>/dev/null || true
chmod 0700 /etc/munge /var/lib/munge /var/log/munge
chmod 0400 /etc/munge/munge.key
chmod 0755 /run/munge
if ! pgrep -x munged >/dev/null; then
  rm -f /run/munge/munged.pid
  if id munge >/dev/null 2>&1; then
    runuser -u munge -- /usr/sbin/munged
  else
    /usr/sbin/munged --force
  fi
  own munged /run/munge/munged.pid
fi

# slurm.conf: one node (this machine), one partition, no cgroups, no accounting
# daemon (job states come from squeue and scontrol).
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=lb-test
MpiDefault=none
SlurmctldHost=${host}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MaxArraySize=100001
MinJobAge=600
NodeName=${host} CPUs=${cpus} RealMemory=${mem_mib} State=UNKNOWN
PartitionName=lb Nodes=${host} Default=YES MaxTime=INFINITE State=UP
CONF
# No cgroup.conf: proctrack/linuxproc and task/none need no cgroups (and Debian
# 12's Slurm 22.05 has no "disabled" cgroup plugin).
rm -f /etc/slurm/cgroup.conf

if ! pgrep -x slurmctld >/dev/null; then
  rm -f /run/slurmctld.pid
  /usr/sbin/slurmctld
  own slurmctld /run/slurmctld.pid
fi
if ! pgrep -x slurmd >/dev/null; then
  rm -f /run/slurmd.pid
  /usr/sbin/slurmd
  own slurmd /run/slurmd.pid
fi

# Wait until the node takes jobs.
for _ in $(seq 1 60); do
  state=$(sinfo -h -o %t 2>/dev/null | head -1 || true)
  case "$state" in
    idle|mix|alloc) echo "== slurm up: node ${host}, ${cpus} CPUs, partition lb"; exit 0 ;;
    down*|drain*) scontrol update NodeName="${host}" State=RESUME >/dev/null 2>&1 || true ;;
  esac
  sleep 1
done
echo "scripts/slurm-single-node.sh: the node did not come up; see /var/log/slurm/" >&2
sinfo >&2 || true
exit 1
