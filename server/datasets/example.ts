// The bilingual HR-onboarding example, in the spirit of the course's "张伟是哪个部门的" lesson.
import type { AppContext } from '../app-context.ts';
import type { SampleInput } from '../samples/service.ts';

type Example = Omit<SampleInput, 'notes' | 'source'> & { source?: string; notes?: string };

const ZH: Example[] = [
  { question: '张伟是哪个部门的？', ground_truth: '张伟是教研部的成员，负责课程研发。', reference_contexts: ['张伟 教研部工程师，他最近在负责课程研发'], tags: ['员工信息'] },
  { question: '新员工入职第一天需要带哪些材料？', ground_truth: '身份证原件、学历证书原件、离职证明和一张一寸照片。', reference_contexts: ['入职须知：请携带身份证原件、学历学位证书原件、上家单位离职证明及一寸免冠照片一张。'], tags: ['入职'] },
  { question: '如何请年假？', ground_truth: '在 OA 系统提交年假申请，由直属主管审批；3 天以上还需部门负责人审批。', reference_contexts: ['年假申请通过 OA 系统提交，直属主管审批。连续 3 天及以上的假期需部门负责人二级审批。'], tags: ['请假', '制度'] },
  { question: '试用期是多久？', ground_truth: '试用期为 3 个月，表现优秀者可申请提前转正。', reference_contexts: ['公司试用期统一为三个月。试用期内表现突出的员工，经主管推荐可提前转正。'], tags: ['入职', '制度'] },
  { question: '报销的流程是什么？', ground_truth: '在费用系统填写报销单并上传发票，经二级主管审批后由财务打款。', reference_contexts: ['费用报销：登录费用系统填写报销单，上传电子发票，提交后依次由直属主管、二级主管审批，财务在 5 个工作日内打款。'], tags: ['报销', '制度'] },
  { question: '公司的 Wi-Fi 密码在哪里查？', ground_truth: '在内网首页的“IT 服务”栏目中可以查到，访客网络另有密码。', reference_contexts: [], tags: ['IT'] },
  { question: '绩效考核多久一次？', ground_truth: '每季度一次，由绩效管理部组织。', reference_contexts: ['绩效管理部 韩杉 李飞 负责建立并维护员工绩效档案，每季度组织一次绩效评价会议。'], tags: ['绩效'] },
  { question: '加班有调休吗？', ground_truth: '工作日加班可在一个月内申请等时长调休，需主管批准。', reference_contexts: ['工作日加班可申请调休，调休需在加班后一个月内使用，并经直属主管批准。'], tags: ['请假', '制度'] },
];

const EN: Example[] = [
  { question: 'Which department is Zhang Wei in?', ground_truth: 'Zhang Wei is a member of the Teaching & Research department.', reference_contexts: ['Zhang Wei, engineer, Teaching & Research department, currently working on course development.'], tags: ['people'] },
  { question: 'What do I bring on my first day?', ground_truth: 'Your ID card, original degree certificates, the leaving certificate from your last employer and one passport photo.', reference_contexts: ['Onboarding: bring your ID card, original diplomas, the leaving certificate from your previous employer and a passport photo.'], tags: ['onboarding'] },
  { question: 'How do I request annual leave?', ground_truth: 'Submit a request in the OA system; your manager approves it, and leave of 3 days or more also needs the head of department.', reference_contexts: ['Annual leave is requested in the OA system and approved by the direct manager. Three or more consecutive days also require the head of department.'], tags: ['leave', 'policy'] },
  { question: 'How long is the probation period?', ground_truth: 'Three months; outstanding employees may be confirmed early.', reference_contexts: ['The probation period is three months for everyone. Managers may recommend outstanding employees for early confirmation.'], tags: ['onboarding', 'policy'] },
  { question: 'How are expenses reimbursed?', ground_truth: 'Fill in a claim in the expense system with the invoices; after two levels of approval finance pays within 5 working days.', reference_contexts: ['Expenses: file a claim in the expense system, attach e-invoices; the direct manager and the second-level manager approve; finance pays within five working days.'], tags: ['expenses', 'policy'] },
  { question: 'How often are performance reviews?', ground_truth: 'Every quarter, organised by the performance management team.', reference_contexts: ['The performance management team keeps performance records and holds a review every quarter.'], tags: ['performance'] },
];

/** Creates the example datasets that do not exist yet; returns the ids of those it created. */
export function loadExampleData(app: AppContext, actorId: number | null): number[] {
  const created: number[] = [];
  const sets = [
    { name: '新人入职答疑（示例）', language: 'zh' as const, domain: '人力资源', description: '示例：新员工常见问题及 HR 专家给出的标准答案。', rows: ZH },
    { name: 'HR onboarding (example)', language: 'en' as const, domain: 'Human resources', description: 'Example: questions new employees ask, with ground truths written by HR experts.', rows: EN },
  ];
  app.db.transaction(() => {
    for (const set of sets) {
      if (app.datasets.byName(set.name)) continue;
      const d = app.datasets.create(actorId, { name: set.name, description: set.description, language: set.language, domain: set.domain });
      set.rows.forEach((row, i) => {
        const s = app.samples.create(actorId, d.id, { source: 'scenario', notes: '', ...row });
        if (i % 2 === 0) app.samples.transition(actorId, s.id, s.version, 'submit');
      });
      created.push(d.id);
    }
  })();
  return created;
}
