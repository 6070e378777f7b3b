#!/bin/sh
# Regenerate the shipped platforms that `dtsim platform` makes, or check that
# they are up to date.
#
#   platforms/generate-shipped.sh DTSIM [--check]
#
# DTSIM is the dtsim binary to use. Without --check the files in platforms/
# are rewritten; with --check each file is regenerated into a temporary
# directory and compared, and the script fails on the first difference
# (make check runs it that way). Each platform's header cites the public
# description of the system it models; the numbers not given there are
# stated as assumptions in the title.
set -e
dtsim=${1:?usage: generate-shipped.sh DTSIM [--check]}
mode=${2:-write}
here=$(cd "$(dirname "$0")" && pwd)
DTSIM_DATADIR=${DTSIM_DATADIR:-$(dirname "$here")}
export DTSIM_DATADIR
if [ "$mode" = --check ]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
else
  out=$here
fi
status=0

gen() {
  name=$1
  shift
  "$dtsim" platform -o "$out/$name.xml" "$@"
  if [ "$mode" = --check ]; then
    if ! cmp -s "$out/$name.xml" "$here/$name.xml"; then
      echo "platforms/$name.xml is not what generate-shipped.sh makes:"
      diff -u "$here/$name.xml" "$out/$name.xml" | head -20
      status=1
    fi
  fi
}

# DGX-1 with V100: 8 x V100 SXM2 16 GB in the hybrid cube-mesh (the NVLink
# matrix of dgx1-v100.xml), 2 sockets with 2 PLX PCIe switches each (2 GPUs
# and one InfiniBand EDR NIC per switch), 4 x 100 Gb/s EDR NICs.
dgx1_title="4 x DGX-1 with Tesla V100 (32 GPUs): NVIDIA DGX-1 With Tesla V100 System
Architecture whitepaper (WP-08437-002): hybrid cube-mesh NVLink 2 (25 GB/s per link
and direction; 8 pairs have two links), PCIe 3.0 switches with 2 GPUs and one
100 Gb/s InfiniBand EDR NIC each, two Xeon E5-2698 v4 sockets (QPI).
Assumptions: one non-blocking EDR switch; 1 us per NVLink, PCIe or NIC hop."
gen dgx1-v100-x4 --title "$dgx1_title" --nodes 4 --gpus-per-node 8 --gpu V100-SXM2-16GB \
  --intra nvlink-mesh --nvlink-pairs dgx1-v100 --intra-bandwidth 25GB/s \
  --sockets 2 --pcie-switches 2 --nics-per-node 4 --nic-bandwidth 100Gbps

# DGX-2: 16 V100 on 12 NVSwitches (6 NVLinks = 150 GB/s per GPU and direction).
dgx2_title="DGX-2: NVIDIA DGX-2 datasheet and NVSwitch technical overview: 16 x Tesla V100
32 GB, 12 NVSwitches giving each GPU 6 NVLink 2 links (150 GB/s per direction) to
any other, two Xeon Platinum 8168 sockets, PCIe 3.0 switches with 2 GPUs each.
The DGX-2's GPUs are SXM3 modules; the catalogue's V100-SXM2-32GB has the same
FP32/tensor peaks and memory. Single node: its 8 NICs are left out.
Assumptions: the NVSwitch fabric is non-blocking; 1 us per NVLink port."
gen dgx2 --title "$dgx2_title" --nodes 1 --gpus-per-node 16 --gpu V100-SXM2-32GB \
  --intra nvswitch --intra-bandwidth 150GB/s --sockets 2 --pcie-switches 4

# DGX A100: 8 x A100 40 GB on NVSwitch (600 GB/s bidirectional per GPU), 8 x
# HDR 200 Gb/s compute NICs, 4 PCIe 4.0 switches (2 GPUs + 2 NICs each).
for n in 1 2 8 32 96; do
  if [ "$n" = 1 ]; then name=dgxa100; topo="--nics-per-node 0"; else
    name=dgxa100-x$n
    topo="--nics-per-node 8 --nic-bandwidth 200Gbps --topology fat-tree --switch-radix 40"
  fi
  title="$n x DGX A100 ($((n * 8)) GPUs): NVIDIA DGX A100 System Architecture whitepaper and
datasheet: 8 x A100 SXM4 40 GB on six NVSwitches (12 NVLink 3 links, 300 GB/s per
GPU and direction), four PCIe 4.0 switches with 2 GPUs and 2 ConnectX-6 HDR
200 Gb/s compute NICs each, two AMD EPYC 7742 sockets.
Assumptions: NICs attach to a fat-tree of 40-port HDR switches (Quantum QM8790),
non-blocking; DGX SuperPOD wires NIC k of every node to rail switch k, which
routes like this tree for ring collectives but is not modelled; the socket
link (64 GB/s) carries no GPU traffic; 1 us per NVLink, PCIe or NIC hop."
  [ "$n" = 1 ] && title="DGX A100: NVIDIA DGX A100 System Architecture whitepaper and datasheet:
8 x A100 SXM4 40 GB on six NVSwitches (12 NVLink 3 links, 300 GB/s per GPU and
direction), four PCIe 4.0 switches, two AMD EPYC 7742 sockets. Single node: its
8 compute NICs are left out (see dgxa100-x2 for them).
Assumptions: 1 us per NVLink or PCIe hop."
  # shellcheck disable=SC2086
  gen $name --title "$title" --nodes $n --gpus-per-node 8 --gpu A100-SXM4-40GB \
    --intra nvswitch --intra-bandwidth 300GB/s --sockets 2 --pcie-switches 2 \
    --pcie-bandwidth 31.5GB/s --socket-bandwidth 64GB/s $topo
done

# The DeepBench all-reduce machine: 8 P100 PCIe under PLX switches, FDR IB.
deepbench_title="DeepBench all-reduce nodes: github.com/baidu-research/DeepBench (README,
All-Reduce results): 8 x Tesla P100 PCIe per node under PLX PCIe switches, two
sockets, InfiniBand FDR between nodes; the measurements are in
shared data validation/deepbench_allreduce.csv (2 to 32 GPUs).
Assumptions: two PLX PCIe 3.0 switches per socket with 2 GPUs each, GPU peer
traffic over PCIe (no NVLink), one FDR 4x NIC (54.5 Gb/s of data: 4 x 14.0625
Gb/s x 64/66) on socket 0's root port, one switch; 1 us per hop."
gen deepbench-p100-x4 --title "$deepbench_title" --nodes 4 --gpus-per-node 8 --gpu P100-PCIE-16GB \
  --intra pcie --sockets 2 --pcie-switches 2 --nic-at-cpu --nics-per-node 1 \
  --nic-bandwidth 54.5Gbps

# AWS p2.8xlarge: 8 K80 dies (4 boards), 10 Gb/s network.
p2_title="AWS EC2 p2.8xlarge: aws.amazon.com/ec2/instance-types/p2: 8 GPUs = 4 Tesla K80
boards of two GK210 dies, 32 vCPUs (one Xeon E5-2686 v4 socket), 10 Gbit/s network
(the instance type's advertised bandwidth).
Assumptions: each K80 board's on-board PLX switch joins its two dies (PCIe 3.0
x16 to the socket); the network is one ENA NIC on the socket's root port and one
non-blocking switch; 25 us per network link (TCP through EC2's virtual network),
1 us per PCIe hop."
gen aws-p2-8xlarge --title "AWS EC2 p2.8xlarge (single instance, no network): see aws-p2-8xlarge-x8.
8 GPUs = 4 Tesla K80 boards of two GK210 dies (aws.amazon.com/ec2/instance-types/p2).
Assumptions: each K80 board's on-board PLX switch joins its two dies (PCIe 3.0 x16
to the one socket); 1 us per PCIe hop." \
  --nodes 1 --gpus-per-node 8 --gpu K80 --intra pcie --sockets 1 --pcie-switches 4
gen aws-p2-8xlarge-x8 --title "8 x $p2_title
As in the TensorFlow tf_cnn_benchmarks of 2017 (8 to 64 K80, synchronous parameter
servers; shared data validation/tf_benchmarks_2017_images_per_sec.csv): the sockets
are hosts (property role=cpu) for parameter servers.
Assumed CPU memory bandwidth (property mem_bw, prices parameter-server updates):
76.8 GB/s, 4 channels of DDR4-2400 as Intel ARK gives for the Xeon E5-2697 v4 (the
E5-2686 v4 is a part made for AWS, not in ARK), a peak." \
  --nodes 8 --gpus-per-node 8 --gpu K80 --intra pcie --sockets 1 --pcie-switches 4 \
  --nic-at-cpu --nics-per-node 1 --nic-bandwidth 10Gbps --nic-latency 25us --cpus \
  --cpu-mem-bw 76.8GBps

# The K80 cluster of Campos et al. (CCGrid 2017; ICCS 2017): BSC's MinoTauro.
campos="V. Campos, F. Sastre, M. Yagues, J. Torres, X. Giro-i-Nieto, Scaling a
Convolutional Neural Network for Classification of Adjective Noun Pairs with
TensorFlow on GPU Clusters, CCGrid 2017 (TensorFlow, parameter servers, near
linear scaling over the GPUs of a node, a distributed speed-up of 10.3 on 16
nodes over one node); the companion study V. Campos, F. Sastre, M. Yagues,
M. Bellver, X. Giro-i-Nieto, J. Torres, Distributed training strategies for a
computer vision deep learning algorithm on a distributed GPU cluster, Procedia
Computer Science 108 (ICCS 2017), doi:10.1016/j.procs.2017.05.074, compares
synchronous and asynchronous training on the same cluster. Both ran on BSC's
MinoTauro, whose K80 nodes have two K80 boards (four GK210 dies), two Xeon
E5-2630 v3 sockets and InfiniBand FDR."
cpu_note="CPU memory bandwidth (property mem_bw of the socket hosts, prices parameter-
server updates): 59 GB/s per Xeon E5-2630 v3, Intel ARK's maximum memory bandwidth
(4 channels of DDR4-1866), a peak."
k80_title="16 K80 nodes, one GK210 die each: $campos
One die per node: the distributed scaling at one GPU per worker; the paper's
nodes have four (platforms/minotauro-k80-x16.xml).
Assumptions: one FDR 4x NIC per node (54.5 Gb/s of data), one non-blocking switch,
sockets as hosts (role=cpu) for the parameter servers; 1 us per hop.
$cpu_note"
gen k80-x16 --title "$k80_title" --nodes 16 --gpus-per-node 1 --gpu K80 --intra pcie \
  --sockets 2 --pcie-switches 0 --nics-per-node 1 --nic-bandwidth 54.5Gbps --cpus \
  --cpu-mem-bw 59GBps

minotauro_title="16 MinoTauro K80 nodes as the paper describes them: $campos
Assumptions: each K80 board's on-board PLX switch joins its two dies (PCIe 3.0 x16
to a socket), board 0 on socket 0 and board 1 on socket 1; one FDR 4x NIC per node
(54.5 Gb/s of data) on socket 0's root port; one non-blocking switch; sockets as
hosts (role=cpu) for the parameter servers; 1 us per hop.
$cpu_note"
gen minotauro-k80-x16 --title "$minotauro_title" --nodes 16 --gpus-per-node 4 --gpu K80 \
  --intra pcie --sockets 2 --pcie-switches 1 --nic-at-cpu --nics-per-node 1 \
  --nic-bandwidth 54.5Gbps --cpus --cpu-mem-bw 59GBps

# DGX-1 with P100 (the TensorFlow 2017 benchmark machine, doc/VALIDATION.md).
dgx1p_title="dgx1-p100: one DGX-1 with 8 x Tesla P100 SXM2 16 GB (NVIDIA DGX-1 System Architecture whitepaper, WP-08437-001, 2016): hybrid cube-mesh of NVLink 1, each P100 with four links of 20 GB/s per direction; GPUs 0-3 and 4-7 are fully connected quads joined by 0-4, 1-5, 2-6 and 3-7. Assumed: two PLX PCIe switches per socket, 1 us per hop. Used against the TensorFlow benchmarks of May 2017 (doc/VALIDATION.md)."
gen dgx1-p100 --title "$dgx1p_title" --nodes 1 --gpus-per-node 8 --gpu P100-SXM2-16GB \
  --intra nvlink-mesh --nvlink-pairs dgx1-p100 --intra-bandwidth 20GBps \
  --sockets 2 --pcie-switches 2

exit $status
