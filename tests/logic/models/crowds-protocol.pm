// Crowds (Reiter & Rubin, "Crowds: anonymity for web transactions", 1998) as a DTMC, in the
// style of the PRISM case study (Shmatikov's model), written for faier from the protocol
// description.  A crowd has CrowdSize members; badC of them are corrupt and collaborate.
// To send a message, the sender hands it to a member chosen uniformly at random (possibly
// itself); an honest member that holds the message hands it on to a random member with
// probability PF and delivers it otherwise.  The first corrupt member that receives the
// message observes who handed it over (its predecessor) and the run is over: the
// collaborators learn nothing more from that run.  The same sender runs the protocol
// TotalRuns times (a path is rebuilt for every run), and the corrupt members count how
// often each honest member was observed: observe0, observe1, ...
//
// Honest members are numbered 0 .. honest-1 (honest = CrowdSize - badC, 2 <= honest <= 20:
// otherwise the phase-3 command does not sum to 1 and faier refuses the constants);
// corrupt members are not told apart.  The sender is member 0 or member 1 (the variable
// `sender`, fixed by the two initial states), so the two computations to compare are
// "sentA" (member 0 sends) and "sentB" (member 1 sends), e.g.
//   faier check tests/logic/models/crowds-protocol.pm --set TotalRuns=3 --set CrowdSize=10 \
//       --set PF=4/5 --set badC=1 --neighbors '@sentA~@sentB' -f 'D{ln(3), 0}[F seen0twice]'
//   faier check ... -f 'P=? [F observe0 > 1]'   (PRISM's: member 0 observed more than once)
//
// Reachable states and transitions (Storm, exact), PF = 4/5, badC = 1:
//   states / transitions   CrowdSize = 5    CrowdSize = 10       CrowdSize = 15       CrowdSize = 20
//   TotalRuns = 1          36 / 78          76 / 258             116 / 538            156 / 918
//   TotalRuns = 2          186 / 438        726 / 2,728          1,616 / 8,368        2,856 / 18,858
//   TotalRuns = 3          616 / 1,498      4,136 / 16,148       13,056 / 70,448      29,876 / 205,898
//   TotalRuns = 4          1,596 / 3,948    17,446 / 69,498      76,296 / 420,648     223,146 / 1,572,648
//   TotalRuns = 5          3,528 / 8,820    60,060 / 242,242     356,592 / 1,992,264
//   TotalRuns = 6          6,972 / 17,556   178,178 / 724,724
//   TotalRuns = 7                           471,328 / 1,928,784
//   TotalRuns = 8          21,582 / 54,846
//   TotalRuns = 10         54,054 / 138,138
// (badC = 2, CrowdSize = 10: 3,080 / 11,110 for 3 runs, 11,990 / 44,110 for 4.)  The counts
// are the same for every PF strictly between 0 and 1.  Building the exact model takes about
// 1 s per 100k states; benchmarks/logic.py times 4k, 17k, 76k, 178k and 357k states.
dtmc

const int TotalRuns; // runs of the protocol, all from the same sender
const int CrowdSize; // members in all, honest and corrupt
const double PF;     // probability that an honest member hands the message on
const int badC;      // corrupt members

formula honest = CrowdSize - badC; // honest members, 2 .. 20
formula toBad = badC / CrowdSize;  // a random member is corrupt

module crowds
  sender : [0..1];        // the sender, fixed by the initial state: member 0 or member 1
  runs : [0..TotalRuns];  // runs over
  phase : [0..3];         // 0 the sender starts a run (or all are over), 1 an honest member
                          // holds the message, 2 a corrupt one received it from `holder`,
                          // 3 an honest member is about to receive it
  holder : [0..19];       // the honest member holding (or last holding) the message
  // how often each honest member was observed by a corrupt member
  observe0 : [0..TotalRuns];
  observe1 : [0..TotalRuns];
  observe2 : [0..TotalRuns];
  observe3 : [0..TotalRuns];
  observe4 : [0..TotalRuns];
  observe5 : [0..TotalRuns];
  observe6 : [0..TotalRuns];
  observe7 : [0..TotalRuns];
  observe8 : [0..TotalRuns];
  observe9 : [0..TotalRuns];
  observe10 : [0..TotalRuns];
  observe11 : [0..TotalRuns];
  observe12 : [0..TotalRuns];
  observe13 : [0..TotalRuns];
  observe14 : [0..TotalRuns];
  observe15 : [0..TotalRuns];
  observe16 : [0..TotalRuns];
  observe17 : [0..TotalRuns];
  observe18 : [0..TotalRuns];
  observe19 : [0..TotalRuns];

  // The holder hands the message on: the sender always (starting a run), an honest
  // member with probability PF (otherwise it delivers and the run is over).
  [] phase = 0 & runs < TotalRuns -> toBad : (phase' = 2) + 1 - toBad : (phase' = 3);
  [] phase = 1 ->
      PF * toBad : (phase' = 2)
    + PF * (1 - toBad) : (phase' = 3)
    + 1 - PF : (phase' = 0) & (runs' = runs + 1) & (holder' = sender);
  // A corrupt member received it: it observes (and reports) the holder; the run is over.
  [] phase = 2 & holder = 0 -> (observe0' = observe0 + 1) & (phase' = 0) & (runs' = runs + 1) & (holder' = sender);
  [] phase = 2 & holder = 1 -> (observe1' = observe1 + 1) & (phase' = 0) & (runs' = runs + 1) & (holder' = sender);
  [] phase = 2 & holder = 2 -> (observe2' = observe2 + 1) & (phase' = 0) & (runs' = runs + 1) & (holder' = sender);
  [] phase = 2 & holder = 3 -> (observe3' = observe3 + 1) & (phase' = 0) & (runs' = runs + 1) & (holder' = sender);
  [] phase = 2 & holder = 4 -> (observe4' = observe4 + 1) & (phase' = 0) & (runs' = runs + 1) & (holder' = sender);
  [] phase = 2 & holder = 5 -> (observe5' = observe5 + 1) & (phase' = 0) & (runs' = runs + 1) & (holder' = sender);
  [] phase = 2 & holder = 6 -> (observe6' = observe6 + 1) & (phase' = 0) & (runs' = runs + 1) & (holder' = sender);
  [] phase = 2 & holder = 7 -> (observe7' = observe7 + 1) & (phase' = 0) & (runs' = runs + 1) & (holder' = sender);
  [] phase = 2 & holder = 8 -> (observe8' = observe8 + 1) & (phase' = 0) & (runs' = runs + 1) & (holder' = sender);
  [] phase = 2 & holder = 9 -> (observe9' = observe9 + 1) & (phase' = 0) & (runs' = runs + 1) & (holder' = sender);
  [] phase = 2 & holder = 10 -> (observe10' = observe10 + 1) & (phase' = 0) & (runs' = runs + 1) & (holder' = sender);
  [] phase = 2 & holder = 11 -> (observe11' = observe11 + 1) & (phase' = 0) & (runs' = runs + 1) & (holder' = sender);
  [] phase = 2 & holder = 12 -> (observe12' = observe12 + 1) & (phase' = 0) & (runs' = runs + 1) & (holder' = sender);
  [] phase = 2 & holder = 13 -> (observe13' = observe13 + 1) & (phase' = 0) & (runs' = runs + 1) & (holder' = sender);
  [] phase = 2 & holder = 14 -> (observe14' = observe14 + 1) & (phase' = 0) & (runs' = runs + 1) & (holder' = sender);
  [] phase = 2 & holder = 15 -> (observe15' = observe15 + 1) & (phase' = 0) & (runs' = runs + 1) & (holder' = sender);
  [] phase = 2 & holder = 16 -> (observe16' = observe16 + 1) & (phase' = 0) & (runs' = runs + 1) & (holder' = sender);
  [] phase = 2 & holder = 17 -> (observe17' = observe17 + 1) & (phase' = 0) & (runs' = runs + 1) & (holder' = sender);
  [] phase = 2 & holder = 18 -> (observe18' = observe18 + 1) & (phase' = 0) & (runs' = runs + 1) & (holder' = sender);
  [] phase = 2 & holder = 19 -> (observe19' = observe19 + 1) & (phase' = 0) & (runs' = runs + 1) & (holder' = sender);
  // An honest member received it, each as likely (members at or past `honest` do not exist).
  [] phase = 3 ->
      1 / honest : (phase' = 1) & (holder' = 0)
    + 1 / honest : (phase' = 1) & (holder' = 1)
    + (honest > 2 ? 1 / honest : 0) : (phase' = 1) & (holder' = 2)
    + (honest > 3 ? 1 / honest : 0) : (phase' = 1) & (holder' = 3)
    + (honest > 4 ? 1 / honest : 0) : (phase' = 1) & (holder' = 4)
    + (honest > 5 ? 1 / honest : 0) : (phase' = 1) & (holder' = 5)
    + (honest > 6 ? 1 / honest : 0) : (phase' = 1) & (holder' = 6)
    + (honest > 7 ? 1 / honest : 0) : (phase' = 1) & (holder' = 7)
    + (honest > 8 ? 1 / honest : 0) : (phase' = 1) & (holder' = 8)
    + (honest > 9 ? 1 / honest : 0) : (phase' = 1) & (holder' = 9)
    + (honest > 10 ? 1 / honest : 0) : (phase' = 1) & (holder' = 10)
    + (honest > 11 ? 1 / honest : 0) : (phase' = 1) & (holder' = 11)
    + (honest > 12 ? 1 / honest : 0) : (phase' = 1) & (holder' = 12)
    + (honest > 13 ? 1 / honest : 0) : (phase' = 1) & (holder' = 13)
    + (honest > 14 ? 1 / honest : 0) : (phase' = 1) & (holder' = 14)
    + (honest > 15 ? 1 / honest : 0) : (phase' = 1) & (holder' = 15)
    + (honest > 16 ? 1 / honest : 0) : (phase' = 1) & (holder' = 16)
    + (honest > 17 ? 1 / honest : 0) : (phase' = 1) & (holder' = 17)
    + (honest > 18 ? 1 / honest : 0) : (phase' = 1) & (holder' = 18)
    + (honest > 19 ? 1 / honest : 0) : (phase' = 1) & (holder' = 19);
  // All runs over.
  [] phase = 0 & runs = TotalRuns -> true;
endmodule

init
  runs = 0 & phase = 0 & holder = sender
  & observe0 = 0 & observe1 = 0 & observe2 = 0 & observe3 = 0 & observe4 = 0
  & observe5 = 0 & observe6 = 0 & observe7 = 0 & observe8 = 0 & observe9 = 0
  & observe10 = 0 & observe11 = 0 & observe12 = 0 & observe13 = 0 & observe14 = 0
  & observe15 = 0 & observe16 = 0 & observe17 = 0 & observe18 = 0 & observe19 = 0
endinit

label "sentA" = sender = 0 & runs = 0 & phase = 0;
label "sentB" = sender = 1 & runs = 0 & phase = 0;
label "done" = runs = TotalRuns;
label "seen0" = observe0 > 0;      // member 0 was observed at least once
label "seen1" = observe1 > 0;
label "seen0twice" = observe0 > 1; // more than once (PRISM's F observe0 > 1)
label "seen1twice" = observe1 > 1;
