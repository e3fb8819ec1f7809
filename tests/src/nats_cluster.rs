//! A private 3-node JetStream cluster per test: three `nats-server` processes on free
//! ports, routed to each other, each with a store of its own; a node is killed and
//! restarted on the same ports and store, as a crashed server of a cluster comes back.

use crate::TempDir;
use crate::nats::Broker;
use crate::nats_process::{NatsProcess, stream_detail};
use crate::ports::{ReservedPort, reserve_port};

/// How many nodes; a stream of 3 replicas keeps a quorum with one of them down.
pub(crate) const NODES: usize = 3;

/// Every stream with its configuration, state and cluster (leader, replicas).
const JSZ_STREAMS: &str = "/jsz?accounts=true&streams=true&config=true";

/// One node: its process and the ports it keeps across restarts.
#[derive(Debug)]
struct Node {
    process: NatsProcess,
    client: ReservedPort,
    _cluster: ReservedPort,
    _monitor: ReservedPort,
}

/// Three running nodes; killed, and their stores removed, on drop.
#[derive(Debug)]
pub struct NatsCluster {
    // First: killed before their directory goes.
    nodes: Vec<Node>,
    _dir: TempDir,
}

impl NatsCluster {
    /// Starts the three nodes and waits until each is healthy and knows the meta leader.
    ///
    /// # Panics
    /// When there is no `nats-server`, or a node is not healthy with a meta leader within
    /// 30 s (the message holds its log).
    #[must_use]
    pub fn start() -> Self {
        let dir = TempDir::new("it-nats-cluster");
        let ports: Vec<[ReservedPort; 3]> = (0..NODES)
            .map(|_| [reserve_port(), reserve_port(), reserve_port()])
            .collect();
        let routes: Vec<String> = ports
            .iter()
            .map(|[_, cluster, _]| format!("\"nats-route://127.0.0.1:{}\"", cluster.get()))
            .collect();
        let nodes = ports
            .into_iter()
            .enumerate()
            .map(|(i, [client, cluster, monitor])| {
                let config = dir.path().join(format!("n{i}.conf"));
                let store = dir.path().join(format!("n{i}-store"));
                std::fs::write(
                    &config,
                    format!(
                        "server_name: n{i}\n\
                         listen: \"127.0.0.1:{}\"\n\
                         http: \"127.0.0.1:{}\"\n\
                         jetstream {{ store_dir: \"{}\" }}\n\
                         cluster {{\n  name: it\n  listen: \"127.0.0.1:{}\"\n  routes: [{}]\n}}\n",
                        client.get(),
                        monitor.get(),
                        store.display(),
                        cluster.get(),
                        routes.join(", "),
                    ),
                )
                .unwrap();
                let args = vec!["-c".into(), config.into_os_string()];
                let log = dir.path().join(format!("n{i}.log"));
                Node {
                    process: NatsProcess::new(args, log, monitor.get()),
                    client,
                    _cluster: cluster,
                    _monitor: monitor,
                }
            })
            .collect();
        let mut cluster = Self { nodes, _dir: dir };
        for node in &mut cluster.nodes {
            node.process.spawn();
        }
        for i in 0..NODES {
            cluster.wait_until_ready(i);
        }
        cluster
    }

    /// Every node's `nats://127.0.0.1:<port>`, whether it runs or not.
    #[must_use]
    pub fn urls(&self) -> Vec<String> {
        self.nodes
            .iter()
            .map(|node| format!("nats://127.0.0.1:{}", node.client.get()))
            .collect()
    }

    /// Sends SIGKILL to node `node`: it dies at once, as in a crash.
    ///
    /// # Panics
    /// When it is not running.
    pub fn kill(&mut self, node: usize) {
        self.nodes[node].process.kill();
    }

    /// Starts node `node` again on its ports and store, and waits until it is healthy and
    /// knows the meta leader.
    ///
    /// # Panics
    /// When it runs, or does not come back within 30 s.
    pub fn restart(&mut self, node: usize) {
        self.nodes[node].process.spawn();
        self.wait_until_ready(node);
    }

    /// The node that leads stream `name` now, as the running nodes' monitoring says.
    #[must_use]
    pub fn stream_leader(&self, name: &str) -> Option<usize> {
        self.running()
            .find(|(i, node)| {
                node.process
                    .monitoring(JSZ_STREAMS)
                    .as_ref()
                    .and_then(|jsz| stream_detail(jsz, name).cloned())
                    .is_some_and(|stream| stream["cluster"]["leader"] == format!("n{i}"))
            })
            .map(|(i, _)| i)
    }

    /// How many clients without a name (the service's processes; a test's own client
    /// names itself) are connected to node `node` now (`/connz`); 0 when it is down.
    #[must_use]
    pub fn unnamed_clients(&self, node: usize) -> usize {
        self.nodes[node]
            .process
            .monitoring("/connz")
            .and_then(|connz| {
                let connections = connz["connections"].as_array()?.iter();
                Some(
                    connections
                        .filter(|c| c["name"].as_str().unwrap_or_default().is_empty())
                        .count(),
                )
            })
            .unwrap_or(0)
    }

    /// How many replicas stream `name` was created with, as a running node reports it.
    ///
    /// # Panics
    /// When no running node knows the stream.
    #[must_use]
    pub fn stream_replicas(&self, name: &str) -> u64 {
        self.read_at_the_leader(name, |stream| stream["config"]["num_replicas"].as_u64())
    }

    /// `what` of stream `name`'s detail, from its leader (a follower may lag behind it).
    fn read_at_the_leader(
        &self,
        name: &str,
        what: impl Fn(&serde_json::Value) -> Option<u64>,
    ) -> u64 {
        let leader = self.stream_leader(name);
        self.running()
            .filter(|(i, _)| leader.is_none_or(|leader| leader == *i))
            .find_map(|(_, node)| {
                let jsz = node.process.monitoring(JSZ_STREAMS)?;
                what(stream_detail(&jsz, name)?)
            })
            .unwrap_or_else(|| {
                let seen: Vec<_> = self
                    .running()
                    .map(|(_, node)| node.process.monitoring(JSZ_STREAMS))
                    .collect();
                panic!("no running node of the cluster knows stream {name}: {seen:?}")
            })
    }

    fn running(&self) -> impl Iterator<Item = (usize, &Node)> {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(_, node)| node.process.is_running())
    }

    /// Healthy (`/healthz`), then a meta leader named by the node's `/jsz`.
    fn wait_until_ready(&mut self, node: usize) {
        let process = &mut self.nodes[node].process;
        process.wait_until_healthy();
        process.wait_for("in a cluster with a meta leader", "/jsz", |jsz| {
            jsz["meta_cluster"]["leader"]
                .as_str()
                .is_some_and(|leader| !leader.is_empty())
        });
    }
}

impl Broker for NatsCluster {
    /// Every node's URL, and a stream kept on all three.
    fn env(&self) -> Vec<(String, String)> {
        vec![
            ("NATS_URL".to_owned(), self.urls().join(",")),
            ("NATS_STREAM_REPLICAS".to_owned(), NODES.to_string()),
        ]
    }

    fn stream_messages(&self, name: &str) -> u64 {
        self.read_at_the_leader(name, |stream| stream["state"]["messages"].as_u64())
    }
}
