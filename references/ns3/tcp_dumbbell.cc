// scenarios/tcp-dumbbell.toml in ns-3 (written against ns-3.37, Debian's `ns3` package): two
// TCP NewReno bulk transfers of 10,485,760 bytes across a 5 Mbps, 10 ms bottleneck that loses
// 1% of the packets in each direction.
//
//   T1 ─┐                              ┌─ K1
//       R1 ══ 5 Mbps, 10 ms, 1% loss ══ R2
//   T2 ─┘                              └─ K2      (every other link 100 Mbps, 10 ms)
//
// One run prints one CSV row per flow (see kColumns). Every setting that differs from ns-3's
// default, and why, is in README.md beside this file.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdint>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

const char* kColumns = "seed,flow,del_ack_count,recovery,limited_transmit,bytes,completed,"
                       "completion_s,established_s,throughput_kbps,timeouts,fast_recoveries,"
                       "segments_sent,retransmissions,acks_received,segments_received";

} // namespace

namespace ns3
{

/// TcpNewReno that also counts its congestion events: ns-3 calls CwndEvent(CA_EVENT_LOSS) once
/// per retransmission timeout and CongestionStateSet(CA_RECOVERY) once per fast recovery. The
/// window arithmetic is TcpNewReno's, untouched unless `rfcFlightSize` is set.
class CountingNewReno : public TcpNewReno
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::CountingNewReno")
                                .SetParent<TcpNewReno>()
                                .SetGroupName("Internet")
                                .AddConstructor<CountingNewReno>();
        return tid;
    }

    CountingNewReno() = default;

    CountingNewReno(const CountingNewReno& other)
        : TcpNewReno(other)
    {
    }

    std::string GetName() const override
    {
        return "CountingNewReno";
    }

    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override
    {
        if (event == TcpSocketState::CA_EVENT_LOSS)
        {
            ++timeouts;
        }
        TcpNewReno::CwndEvent(tcb, event);
    }

    void CongestionStateSet(Ptr<TcpSocketState> tcb,
                            const TcpSocketState::TcpCongState_t state) override
    {
        if (state == TcpSocketState::CA_RECOVERY)
        {
            ++fastRecoveries;
        }
        TcpNewReno::CongestionStateSet(tcb, state);
    }

    /// With `rfcFlightSize` (a sensitivity run, off for the reference figures), ssthresh at a
    /// fast retransmit is RFC 5681's FlightSize / 2, FlightSize = SND.NXT − SND.UNA, instead of
    /// the (pipe + SMSS) / 2 ns-3 passes in. Everything else is TcpNewReno's.
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override
    {
        if (rfcFlightSize && tcb->m_congState == TcpSocketState::CA_RECOVERY)
        {
            bytesInFlight = tcb->m_highTxMark.Get() - tcb->m_lastAckedSeq;
        }
        return TcpNewReno::GetSsThresh(tcb, bytesInFlight);
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<CountingNewReno>(this);
    }

    static bool rfcFlightSize;
    uint64_t timeouts = 0;
    uint64_t fastRecoveries = 0;
};

bool CountingNewReno::rfcFlightSize = false;

NS_OBJECT_ENSURE_REGISTERED(CountingNewReno);

} // namespace ns3

namespace
{

/// What one sender saw.
struct Flow
{
    std::string name;
    Ptr<BulkSendApplication> app;
    Ptr<TcpSocketBase> socket;
    uint64_t bytes = 0;
    Time established = Seconds(-1);
    Time completed = Seconds(-1);
    uint64_t segmentsSent = 0;
    uint64_t retransmissions = 0;
    uint64_t acksReceived = 0;
    /// Data segments that reached the receiving host, duplicates included.
    uint64_t segmentsReceived = 0;
    /// The highest data byte sent so far, plus one (sequence numbers relative to the ISN).
    uint32_t highSent = 0;
    std::shared_ptr<std::ofstream> trace;
};

void
OnHighestRxAck(Flow* f, SequenceNumber32 /* old */, SequenceNumber32 ack)
{
    // The SYN takes sequence number 0: data byte i is sequence number i + 1.
    if (f->completed.IsNegative() && ack.GetValue() >= f->bytes + 1)
    {
        f->completed = Simulator::Now();
    }
}

void
OnState(Flow* f, TcpSocket::TcpStates_t /* old */, TcpSocket::TcpStates_t now)
{
    if (now == TcpSocket::ESTABLISHED && f->established.IsNegative())
    {
        f->established = Simulator::Now();
    }
}

void
OnTx(Flow* f, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase> /* socket */)
{
    if (p->GetSize() == 0)
    {
        return;
    }
    ++f->segmentsSent;
    uint32_t start = h.GetSequenceNumber().GetValue();
    uint32_t end = start + p->GetSize();
    if (start < f->highSent)
    {
        ++f->retransmissions;
    }
    f->highSent = std::max(f->highSent, end);
    if (f->trace)
    {
        *f->trace << Simulator::Now().GetNanoSeconds() << ",tx," << start << "\n";
    }
}

void
OnRx(Flow* f, Ptr<const Packet> /* p */, const TcpHeader& h, Ptr<const TcpSocketBase> /* s */)
{
    if ((h.GetFlags() & TcpHeader::ACK) && !(h.GetFlags() & TcpHeader::SYN))
    {
        ++f->acksReceived;
    }
}

void
OnHostRx(Flow* f, Ptr<const Packet> packet, Ptr<Ipv4> /* ipv4 */, uint32_t /* interface */)
{
    Ptr<Packet> p = packet->Copy();
    Ipv4Header ip;
    p->RemoveHeader(ip);
    if (ip.GetProtocol() != TcpL4Protocol::PROT_NUMBER)
    {
        return;
    }
    TcpHeader tcp;
    p->RemoveHeader(tcp);
    if (p->GetSize() > 0)
    {
        ++f->segmentsReceived;
    }
}

void
OnCwnd(Flow* f, uint32_t /* old */, uint32_t cwnd)
{
    *f->trace << Simulator::Now().GetNanoSeconds() << ",cwnd," << cwnd << "\n";
}

void
OnSsthresh(Flow* f, uint32_t /* old */, uint32_t ssthresh)
{
    *f->trace << Simulator::Now().GetNanoSeconds() << ",ssthresh," << ssthresh << "\n";
}

void
OnCongState(Flow* f, TcpSocketState::TcpCongState_t /* old */, TcpSocketState::TcpCongState_t s)
{
    *f->trace << Simulator::Now().GetNanoSeconds() << ",state," << static_cast<int>(s) << "\n";
}

void
OnInFlight(Flow* f, uint32_t /* old */, uint32_t pipe)
{
    *f->trace << Simulator::Now().GetNanoSeconds() << ",pipe," << pipe << "\n";
}

void
OnAck(Flow* f, SequenceNumber32 /* old */, SequenceNumber32 ack)
{
    *f->trace << Simulator::Now().GetNanoSeconds() << ",ack," << ack.GetValue() << "\n";
}

/// Called just after the applications start: their sockets exist now.
void
Hook(std::vector<Flow>* flows)
{
    for (Flow& f : *flows)
    {
        f.socket = DynamicCast<TcpSocketBase>(f.app->GetSocket());
        NS_ABORT_MSG_IF(!f.socket, "no TCP socket for " << f.name);
        f.socket->TraceConnectWithoutContext("HighestRxAck", MakeBoundCallback(&OnHighestRxAck, &f));
        f.socket->TraceConnectWithoutContext("State", MakeBoundCallback(&OnState, &f));
        f.socket->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTx, &f));
        f.socket->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnRx, &f));
        if (f.trace)
        {
            f.socket->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, &f));
            f.socket->TraceConnectWithoutContext("SlowStartThreshold",
                                                 MakeBoundCallback(&OnSsthresh, &f));
            f.socket->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, &f));
            f.socket->TraceConnectWithoutContext("HighestRxAck", MakeBoundCallback(&OnAck, &f));
            f.socket->TraceConnectWithoutContext("BytesInFlight", MakeBoundCallback(&OnInFlight, &f));
        }
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t seed = 1;
    uint32_t delAckCount = 2;
    std::string recovery = "classic";
    bool limitedTransmit = true;
    uint64_t bytes = 10485760;
    double seconds = 300;
    std::string tracePrefix;
    bool header = false;
    bool rfcFlightSize = false;

    CommandLine cmd(__FILE__);
    cmd.AddValue("seed", "RngRun: the run's random stream (1, 2, ...)", seed);
    cmd.AddValue("delAckCount", "TcpSocket::DelAckCount: 2 = delayed ACKs, 1 = an ACK per segment",
                 delAckCount);
    cmd.AddValue("recovery", "fast recovery: classic (RFC 6582) or prr (RFC 6937, ns-3's default)",
                 recovery);
    cmd.AddValue("limitedTransmit", "TcpSocketBase::LimitedTransmit (RFC 3042)", limitedTransmit);
    cmd.AddValue("bytes", "bytes each flow sends", bytes);
    cmd.AddValue("seconds", "simulated time", seconds);
    cmd.AddValue("trace",
                 "write PREFIX-tcp1.csv, PREFIX-tcp2.csv: cwnd, ssthresh, state, pipe, ack, tx",
                 tracePrefix);
    cmd.AddValue("header", "print the CSV header first", header);
    cmd.AddValue("rfcFlightSize",
                 "sensitivity run, with limitedTransmit=false: ssthresh at a fast retransmit from "
                 "RFC 5681's FlightSize / 2",
                 rfcFlightSize);
    cmd.Parse(argc, argv);

    // With limited transmit ns-3 sends segments the RFC leaves out of FlightSize, and this
    // program cannot tell them apart: the sensitivity run is exact only without it.
    NS_ABORT_MSG_IF(rfcFlightSize && limitedTransmit, "--rfcFlightSize needs --limitedTransmit=false");
    CountingNewReno::rfcFlightSize = rfcFlightSize;
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    // TCP as ndncc's `tcp` app models it (README.md gives the reasons).
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(CountingNewReno::GetTypeId()));
    if (recovery == "classic")
    {
        Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                           TypeIdValue(TcpClassicRecovery::GetTypeId()));
    }
    else if (recovery == "prr")
    {
        Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                           TypeIdValue(TcpPrrRecovery::GetTypeId()));
    }
    else
    {
        NS_ABORT_MSG("--recovery must be classic or prr");
    }
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1024));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delAckCount));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 24));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 24));
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(1000));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(limitedTransmit));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(1)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(1)));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(Seconds(1)));

    // Nodes: 0 T1, 1 T2, 2 R1, 3 R2, 4 K1, 5 K2.
    NodeContainer nodes;
    nodes.Create(6);
    enum
    {
        T1,
        T2,
        R1,
        R2,
        K1,
        K2
    };
    InternetStackHelper stack;
    stack.Install(nodes);

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
    access.SetChannelAttribute("Delay", StringValue("10ms"));
    access.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("100p"));
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue("5Mbps"));
    bottleneck.SetChannelAttribute("Delay", StringValue("10ms"));
    bottleneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("100p"));

    std::vector<std::pair<int, int>> links = {{T1, R1}, {T2, R1}, {R1, R2}, {R2, K1}, {R2, K2}};
    std::vector<NetDeviceContainer> devices;
    Ipv4AddressHelper address;
    std::vector<Ipv4InterfaceContainer> interfaces;
    TrafficControlHelper tch;
    for (size_t i = 0; i < links.size(); ++i)
    {
        auto [a, b] = links[i];
        PointToPointHelper& helper = (a == R1 && b == R2) ? bottleneck : access;
        NetDeviceContainer d = helper.Install(nodes.Get(a), nodes.Get(b));
        std::string net = "10.0." + std::to_string(i + 1) + ".0";
        address.SetBase(net.c_str(), "255.255.255.0");
        interfaces.push_back(address.Assign(d));
        // The device's 100-packet drop-tail queue is the only queue: no qdisc in front of it.
        tch.Uninstall(d);
        devices.push_back(d);
    }
    // 1% of the packets lost in each direction of the bottleneck, as each arrives.
    NetDeviceContainer& b = devices[2];
    for (uint32_t i = 0; i < 2; ++i)
    {
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetAttribute("ErrorUnit", EnumValue(RateErrorModel::ERROR_UNIT_PACKET));
        em->SetAttribute("ErrorRate", DoubleValue(0.01));
        b.Get(i)->SetAttribute("ReceiveErrorModel", PointerValue(em));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // tcp1: T1 → K1, tcp2: T2 → K2, both from t = 0.
    std::vector<Flow> flows(2);
    const uint16_t port = 5000;
    std::vector<std::pair<int, Ipv4Address>> ends = {{T1, interfaces[3].GetAddress(1)},
                                                     {T2, interfaces[4].GetAddress(1)}};
    for (size_t i = 0; i < 2; ++i)
    {
        Flow& f = flows[i];
        f.name = "tcp" + std::to_string(i + 1);
        f.bytes = bytes;
        BulkSendHelper send("ns3::TcpSocketFactory", InetSocketAddress(ends[i].second, port));
        send.SetAttribute("MaxBytes", UintegerValue(bytes));
        send.SetAttribute("SendSize", UintegerValue(1024));
        ApplicationContainer a = send.Install(nodes.Get(ends[i].first));
        a.Start(Seconds(0));
        f.app = DynamicCast<BulkSendApplication>(a.Get(0));
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        Ptr<Node> host = nodes.Get(i == 0 ? K1 : K2);
        ApplicationContainer s = sink.Install(host);
        s.Start(Seconds(0));
        host->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext(
            "Rx",
            MakeBoundCallback(&OnHostRx, &f));
        if (!tracePrefix.empty())
        {
            f.trace = std::make_shared<std::ofstream>(tracePrefix + "-" + f.name + ".csv");
            *f.trace << "t_ns,what,value\n";
        }
    }
    Simulator::Schedule(NanoSeconds(1), &Hook, &flows);

    Simulator::Stop(Seconds(seconds));
    Simulator::Run();

    std::cout << std::setprecision(9);
    if (header)
    {
        std::cout << kColumns << "\n";
    }
    for (Flow& f : flows)
    {
        PointerValue ops;
        f.socket->GetAttribute("CongestionOps", ops);
        Ptr<CountingNewReno> cc = DynamicCast<CountingNewReno>(ops.Get<TcpCongestionOps>());
        NS_ABORT_MSG_IF(!cc, "the socket does not run CountingNewReno");
        bool done = !f.completed.IsNegative();
        double t = done ? f.completed.GetSeconds() : seconds;
        double kbps = t > 0 ? static_cast<double>(done ? f.bytes : 0) * 8 / t / 1e3 : 0;
        std::cout << seed << "," << f.name << "," << delAckCount << "," << recovery << ","
                  << (limitedTransmit ? "true" : "false") << "," << f.bytes << ","
                  << (done ? 1 : 0) << "," << t << "," << f.established.GetSeconds() << ","
                  << kbps << "," << cc->timeouts << "," << cc->fastRecoveries << ","
                  << f.segmentsSent << "," << f.retransmissions << "," << f.acksReceived << ","
                  << f.segmentsReceived << "\n";
    }
    Simulator::Destroy();
    return 0;
}
